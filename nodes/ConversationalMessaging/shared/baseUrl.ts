/**
 * Users paste the base URL in many shapes ("https://host/", "https://host/v1"); every
 * operation path starts with /v1, so keep only the origin and any path before /v1.
 */
export function apiBaseUrl(baseUrl: unknown): string {
	return String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '')
		.replace(/\/v1$/i, '');
}
