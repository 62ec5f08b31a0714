/**
 * The token travels in the body or query, which n8n does not strip on a redirect as it strips
 * authorization headers: no request follows one; a 3xx is an error.
 */
export const NO_REDIRECTS = { disableFollowRedirect: true } as const;

export const REDIRECT_STATUSES = [301, 302, 303, 307, 308];

export const REDIRECT_ADVICE =
	"Nothing is sent on to a redirect's address: the API token travels with every request and must not reach another one. Put the service's final address in the credential's Base URL (for example https:// instead of http://, or its new host).";

/** The origin only, to compare with the Base URL; a relative Location stays on the same host. */
function target(location: string | undefined): string {
	if (!location) return 'no address';
	return URL.canParse(location) ? new URL(location).origin : 'another address on the same host';
}

export function redirectMessage(status: number, location: string | undefined): string {
	return `The service answered ${status}, a redirect to ${target(location)}: the request was not carried out there`;
}
