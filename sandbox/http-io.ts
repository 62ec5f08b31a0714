// Reading a request body and answering JSON, for the sandbox and its "elsewhere" host.
import type * as http from 'http';

export function readBody(req: http.IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

export function sendJson(
	res: http.ServerResponse,
	status: number,
	payload: unknown,
	headers: http.OutgoingHttpHeaders = {},
): void {
	const text = JSON.stringify(payload);
	res.writeHead(status, {
		'content-type': 'application/json; charset=utf-8',
		'content-length': Buffer.byteLength(text),
		...headers,
	});
	res.end(text);
}

/** The service's error envelope; `status` goes in `statusCode`, whatever the HTTP status. */
export function errorEnvelope(
	status: number,
	message: string,
): { statusCode: number; body: { err: true; message: string } } {
	return { statusCode: status, body: { err: true, message } };
}
