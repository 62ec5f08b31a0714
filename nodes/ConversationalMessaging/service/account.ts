/**
 * The service account a credential names: the credential type's name, and its Base URL as
 * requests use it (the credential's authenticate and the node both read it from here).
 */
export const CREDENTIAL_NAME = 'conversationalMessagingApi';

/** Users paste "https://host/" or "https://host/v1"; every operation path starts with /v1. */
export function apiBaseUrl(baseUrl: unknown): string {
	return String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '')
		.replace(/\/v1$/i, '');
}

/**
 * An address as errors may show it: without the user:password@ before its host. Cut at the last
 * @, as a password may hold an unescaped @, / or line break: a wrong host shown beats a password shown.
 */
export const withoutUserInfo = (address: string): string =>
	address.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[\s\S]*@/i, '$1');
