/**
 * The faults the sandbox injects into the service's answers, and what the node must say about
 * each: shared by the engine's fault matrix (faults.test.ts) and its subset in real n8n
 * (test/e2e/faults.e2e.ts).
 */
import type { Fault } from '../../sandbox/server';
import type { FaultRow } from './results';

export const RETRY_HINT =
	'Try again later; Retry On Fail (node settings) can do it for you, and operations with Send Options then skip the items already accepted';
export const TOKEN_HINT = 'Update the credential with the current token';
export const REDIRECT_HINT =
	"Put the service's final address in the credential's Base URL (for example https:// instead of http://";

export interface ServiceFaultCase {
	name: string;
	fault: Fault;
	/** The port of a sandbox varies: network failures name the host, matched by pattern. */
	message: string | RegExp;
	/** Parts the description must contain. */
	description: string[];
	httpCode: string;
	source: FaultRow['source'];
	verdict: string;
	/** The send loop waits and sends the refused requests again: no item fails, each is sent once. */
	recovers?: boolean;
}

export const SERVICE_FAULTS: ServiceFaultCase[] = [
	{
		name: 'HTTP 500',
		fault: { kind: 'status', status: 500 },
		message: 'The service answered 500: Internal Server Error',
		description: [RETRY_HINT],
		httpCode: '500',
		source: 'node',
		verdict: 'readable: status, service message, what to do',
	},
	{
		name: 'HTTP 502 with an HTML body',
		fault: { kind: 'status', status: 502, html: true },
		message:
			'The service answered HTTP 502 with a body that is not JSON: "502 Bad Gateway 502 Bad Gateway"',
		description: [RETRY_HINT],
		httpCode: '502',
		source: 'node',
		verdict: 'readable: status and the page text, what to do',
	},
	{
		name: 'HTTP 429 with Retry-After',
		fault: { kind: 'status', status: 429, retryAfter: 1 },
		message: '',
		description: [],
		httpCode: '429',
		source: 'node',
		verdict: 'recovered: each refused item waited the Retry-After and was sent again, once',
		recovers: true,
	},
	{
		name: 'Connection dropped mid-response',
		fault: { kind: 'drop' },
		message:
			/^The connection to the service at 127\.0\.0\.1:\d+ was cut before its answer arrived$/,
		description: ['may still have carried out the request', 'Try again later'],
		httpCode: 'ECONNRESET',
		source: 'node',
		verdict: 'readable: the host, the cut, that it may have been carried out, what to do',
	},
	{
		name: 'Malformed JSON body',
		fault: { kind: 'malformed' },
		message:
			'The service answered HTTP 200 with a body that is not JSON: "{"statusCode":200,"body":{"err":false,"',
		description: [
			'Check that the Base URL of the credential points at the Conversational Messaging API.',
		],
		httpCode: '200',
		source: 'node',
		verdict: 'readable: status, the start of the body, what to check',
	},
	{
		name: 'Empty body',
		fault: { kind: 'empty' },
		message: 'The service sent an empty answer (HTTP 200)',
		description: [RETRY_HINT],
		httpCode: '200',
		source: 'node',
		verdict: 'readable: what came, the status, what to do',
	},
	{
		name: 'err: true on HTTP 200',
		fault: { kind: 'errTrue', message: 'Instance line-1 is disconnected' },
		message: 'The service answered 400: Instance line-1 is disconnected',
		description: ['The service refused the request for what it contains'],
		httpCode: '400',
		source: 'node',
		verdict: 'readable: the service message and its status',
	},
	{
		name: 'Envelope 401 on HTTP 200',
		fault: { kind: 'errTrue', statusCode: 401, message: 'Unauthorized' },
		message: 'The service answered 401: Unauthorized',
		description: [TOKEN_HINT],
		httpCode: '401',
		source: 'node',
		verdict: 'readable: Unauthorized, update the token',
	},
	{
		name: 'Envelope 401 on HTTP 401',
		fault: { kind: 'status', status: 401 },
		message: 'The service answered 401: Unauthorized',
		description: [TOKEN_HINT],
		httpCode: '401',
		source: 'node',
		verdict: 'readable: Unauthorized, update the token',
	},
	{
		name: 'Redirect (307) to another host',
		fault: { kind: 'redirect', status: 307 },
		message:
			/^The service answered 307, a redirect to http:\/\/127\.0\.0\.2:\d+: the request was not carried out there$/,
		description: ['the API token travels with every request', REDIRECT_HINT],
		httpCode: '307',
		source: 'node',
		verdict:
			'readable: the status, the host it pointed to, not sent there, enter the final address',
	},
];
