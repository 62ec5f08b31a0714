/**
 * The API token travels in the body (or, for GET, the query) of every request, so a redirect
 * would carry it to whatever address the redirect names: n8n strips authorization headers on a
 * redirect to another host, but a token in the body or the URL is ours to protect. No request of
 * the node or of the credential test follows a redirect; a 3xx answer is an error instead.
 */

/** Every request of the node and of the credential test: n8n's helpers then follow no redirect. */
export const NO_REDIRECTS = { disableFollowRedirect: true } as const;

/** The statuses that would make an HTTP client send the request again elsewhere. */
export const REDIRECT_STATUSES = [301, 302, 303, 307, 308];

export const REDIRECT_ADVICE =
	"Nothing is sent on to a redirect's address: the API token travels with every request and must not reach another one. Put the service's final address in the credential's Base URL (for example https:// instead of http://, or its new host).";

/** Where a redirect pointed, as a user can compare it with the Base URL: the origin only. */
function target(location: string | undefined): string {
	if (!location) return 'no address';
	try {
		return new URL(location).origin;
	} catch {
		// A relative Location stays on the same host.
		return 'another address on the same host';
	}
}

/** The error message of a 3xx answer: its status and where it pointed. */
export function redirectMessage(status: number, location: string | undefined): string {
	return `The service answered ${status}, a redirect to ${target(location)}: the request was not carried out there`;
}
