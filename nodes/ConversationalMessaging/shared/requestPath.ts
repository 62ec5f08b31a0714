import type { IDataObject } from 'n8n-workflow';

const isObject = (value: unknown): value is IDataObject =>
	value !== null && typeof value === 'object';

/** `path`: the keys of a place in a request, ['body', 'to'] for `body.to`. */
export const readPath = (request: object, path: string[]): unknown =>
	path.reduce<unknown>((value, key) => (isObject(value) ? value[key] : undefined), request);

/** Makes the objects on the way. */
export function setPath(request: object, path: string[], value: unknown): void {
	let current = request as IDataObject;
	for (const key of path.slice(0, -1)) {
		if (!isObject(current[key])) current[key] = {};
		current = current[key] as IDataObject;
	}
	current[path[path.length - 1]] = value as IDataObject[string];
}
