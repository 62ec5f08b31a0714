import { mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';
import type { ICredentialDataDecryptedObject, IDataObject, INodeParameters } from 'n8n-workflow';

import { openLanes } from '../../nodes/ConversationalMessaging/sendLoop/lane';
import type { RecordedRequest, Sandbox, SandboxOptions } from '../../sandbox/server';
import { startSandbox } from '../../sandbox/server';
import type { RunOptions, RunResult } from './engine';
import { CONTRACT_USAGE_DIR } from './contract-usage';
import { runNode } from './engine';

export interface SandboxRun extends RunResult {
	/** The requests this run sent, as the sandbox received them. */
	requests: RecordedRequest[];
}

export interface SandboxSuite {
	readonly sandbox: Sandbox;
	run(
		parameters: INodeParameters,
		options?: Omit<RunOptions, 'parameters' | 'credentials'> & {
			apiToken?: string;
			/** Credential fields besides the Base URL and the token. */
			credentials?: ICredentialDataDecryptedObject;
		},
	): Promise<SandboxRun>;
}

/**
 * One sandbox for a test file, on 127.0.0.1. Every request the node sends is checked by the
 * sandbox against the contract; the file's tally is written out for the suite-wide check.
 */
export function useSandbox(options: SandboxOptions = {}): SandboxSuite {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, seed: 7, researcherRunMs: 400, ...options });
	});
	afterAll(async () => {
		if (!sandbox) return;
		const stats = sandbox.stats();
		await sandbox.close();
		// Read here, not when the file loads: the node tier's runner sets the path after loading it.
		const testPath = expect.getState().testPath;
		if (!testPath) throw new Error('useSandbox: jest gave no test path to name the tally by');
		const fileName = testPath.split(/[\\/]/).slice(-2).join('_');
		mkdirSync(CONTRACT_USAGE_DIR, { recursive: true });
		writeFileSync(join(CONTRACT_USAGE_DIR, `${fileName}.json`), JSON.stringify(stats));
		// The node's lanes live as long as the process, and the node tier's files share a worker:
		// what a file leaves behind fails that file, not the next one.
		expect(openLanes()).toBe(0);
	});
	return {
		get sandbox() {
			if (!sandbox) throw new Error('sandbox not started');
			return sandbox;
		},
		async run(parameters, { apiToken, credentials, ...runOptions } = {}) {
			const current = this.sandbox;
			const before = current.requests.length;
			const result = await runNode({
				parameters,
				credentials: { ...credentials, baseUrl: current.url, apiToken: apiToken ?? current.token },
				...runOptions,
			});
			return { ...result, requests: current.requests.slice(before) };
		},
	};
}

/** Send SMS to each item's `phone`: the parameters tests of the send loop start from. */
export const SEND_SMS = {
	resource: 'messaging',
	operation: 'sendSms',
	to: '={{ $json.phone }}',
	instance: 'line-1',
	message: 'Hi',
};

/** The JSON of the items, for comparisons. */
export const jsonOf = (result: RunResult): IDataObject[] => result.items.map((item) => item.json);

/**
 * The one request of a run: valid against the contract, with the token where the credential
 * puts it (query for GET, body otherwise) and nowhere else.
 */
export function onlyRequest(
	run: SandboxRun,
	token: string,
): RecordedRequest & { body: IDataObject } {
	expect(run.requests).toHaveLength(1);
	const [request] = run.requests;
	expect(request.errors).toEqual([]);
	expect(request.valid).toBe(true);
	expectTokenWhereDocumented(request, token);
	return request as RecordedRequest & { body: IDataObject };
}

export function expectTokenWhereDocumented(request: RecordedRequest, token: string): void {
	const body = (request.body ?? {}) as IDataObject;
	if (request.method === 'GET') {
		expect(request.query.token).toBe(token);
		expect(body.token).toBeUndefined();
	} else {
		expect(body.token).toBe(token);
		expect(request.query.token).toBeUndefined();
	}
	expect(request.query['api-token']).toBeUndefined();
	expect(JSON.stringify(request.headers)).not.toContain(token);
}

/** The request body without the token, for comparing with what the user entered. */
export function sentBody(request: RecordedRequest): IDataObject {
	const { token: _token, ...rest } = request.body as IDataObject;
	return rest;
}
