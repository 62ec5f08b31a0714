import type { IDataObject } from 'n8n-workflow';

/** lodash's isPlainObject: no prototype, or one whose constructor is (any realm's) Object. */
export function isPlainObject(value: unknown): value is IDataObject {
	if (value === null || typeof value !== 'object') return false;
	if (Object.prototype.toString.call(value) !== '[object Object]') return false;
	const proto = Object.getPrototypeOf(value) as object | null;
	if (proto === null) return true;
	const Ctor: unknown =
		Object.prototype.hasOwnProperty.call(proto, 'constructor') && proto.constructor;
	return (
		typeof Ctor === 'function' &&
		Ctor instanceof Ctor &&
		Function.prototype.toString.call(Ctor) === Function.prototype.toString.call(Object)
	);
}

const isObject = (value: unknown): value is IDataObject =>
	value !== null && (typeof value === 'object' || typeof value === 'function');

/** lodash's `set` for a path of names (the contract refuses index paths): RoutingNode's write of a sent value, and the checks' writes. */
export function setPath(target: unknown, path: string[], value: unknown): void {
	if (!isObject(target)) return;
	let current = target;
	for (const key of path.slice(0, -1)) {
		if (!isObject(current[key])) current[key] = {};
		current = current[key] as IDataObject;
	}
	current[path[path.length - 1]] = value as IDataObject[string];
}

/** lodash's isArrayLikeObject: an object (not a function) with a valid `length`. */
function isArrayLikeObject(value: unknown): value is { length: number } & IDataObject {
	if (!isObject(value) || typeof value === 'function') return false;
	const length = (value as { length?: unknown }).length;
	return (
		typeof length === 'number' &&
		Number.isInteger(length) &&
		length >= 0 &&
		length <= Number.MAX_SAFE_INTEGER
	);
}

/** lodash's assignMergeValue: `undefined` only creates a missing key; an equal value is left. */
function assign(target: IDataObject, key: string, value: unknown): void {
	const current = target[key];
	const same = current === value || (current !== current && value !== value);
	if ((value !== undefined && !same) || (value === undefined && !(key in target))) {
		target[key] = value as IDataObject[string];
	}
}

/**
 * lodash's `merge` (RoutingNode merges every property's part of the request with it), for the
 * values a request is made of: plain objects merge key by key, arrays index by index into an
 * array already there (else into a new one), a source value `undefined` never replaces a value,
 * anything else (text, numbers, class instances such as dates) is assigned. It differs from
 * lodash for values the contract keeps out of constants (./contract.ts): Buffers and typed arrays
 * are assigned, not copied, and circular values are not supported.
 * test/nodes/ConversationalMessaging/merge.test.ts compares it with lodash's own.
 */
export function mergeInto<T extends object>(target: T, source: object): T {
	const into = target as IDataObject;
	// lodash reads the source's own and inherited enumerable keys, as `for...in` does.
	for (const key in source) {
		const from = (source as IDataObject)[key];
		// lodash's safeGet: the prototype and a constructor function are never merged into.
		const existing =
			key === '__proto__' || (key === 'constructor' && typeof into[key] === 'function')
				? undefined
				: into[key];
		let value: unknown = from;
		if (Array.isArray(from)) {
			const array = Array.isArray(existing)
				? existing
				: isArrayLikeObject(existing)
					? Array.from({ length: existing.length }, (_, index) => existing[index])
					: [];
			value = mergeInto(array, from);
		} else if (isPlainObject(from)) {
			const object =
				isObject(existing) && typeof existing !== 'function'
					? existing
					: Object.create(Object.getPrototypeOf(from) as object | null);
			value = mergeInto(object as object, from);
		}
		assign(into, key, value);
	}
	return target;
}

/** A copy of plain data, as lodash's merge copies it into a request. */
export function copyOf(value: unknown): unknown {
	return mergeInto({ value: undefined as unknown }, { value }).value;
}
