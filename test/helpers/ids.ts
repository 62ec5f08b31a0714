/**
 * The value with every id the sandbox made (`sms_00a1B2c3`: prefix, sequence, five characters;
 * sandbox/server.ts) replaced by `<id>`: they depend on the order requests arrive in, which
 * concurrency may change.
 */
export const withoutSandboxIds = (value: unknown): unknown =>
	JSON.parse(
		JSON.stringify(value ?? null).replace(/"[a-z]+_[0-9a-z]{3}[A-Za-z0-9]{5}"/g, '"<id>"'),
	);
