/** Users paste "https://host/" or "https://host/v1"; every operation path starts with /v1. */
export function apiBaseUrl(baseUrl: unknown): string {
	return String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '')
		.replace(/\/v1$/i, '');
}
