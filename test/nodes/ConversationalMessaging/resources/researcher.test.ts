import { jsonOf, onlyRequest, sentBody, useSandbox } from '../../../helpers/sandbox';

const suite = useSandbox({ researcherRunMs: 1500 });
const files = {
	file: [{ url: 'https://example.com/report.pdf', name: 'Report', type: 'document' }],
};

async function createResearcher() {
	const run = await suite.run({
		resource: 'researcher',
		operation: 'create',
		researcherName: 'Market scan',
		researcherDescription: 'Competitor prices',
		model: 'fast',
		policyId: 'policy-1',
		files,
	});
	return { run, id: String(jsonOf(run)[0].id) };
}

describe('Researcher', () => {
	it('creates a draft researcher with its files as a list of url, name and type', async () => {
		const { run, id } = await createResearcher();
		const request = onlyRequest(run, suite.sandbox.token);
		expect([request.method, request.path]).toEqual(['POST', '/v1/researcher']);
		expect(sentBody(request)).toEqual({
			name: 'Market scan',
			description: 'Competitor prices',
			model: 'fast',
			type: 'policy-1',
			files: [{ url: 'https://example.com/report.pdf', name: 'Report', type: 'document' }],
		});
		expect(jsonOf(run)[0]).toMatchObject({ id, status: 0 });
	});

	it('adds files and reads selected fields', async () => {
		const { id } = await createResearcher();
		const add = await suite.run({
			resource: 'researcher',
			operation: 'addFiles',
			researcherId: id,
			filesToAdd: {
				file: [
					{ url: 'https://example.com/prices', name: 'Prices page', type: 'url' },
					{ url: 'https://example.com/a.mp3', name: 'Call', type: 'audio' },
				],
			},
		});
		const patch = onlyRequest(add, suite.sandbox.token);
		expect([patch.method, patch.path]).toEqual(['PATCH', `/v1/researcher/${id}`]);
		expect(sentBody(patch)).toEqual({
			files: [
				{ url: 'https://example.com/prices', name: 'Prices page', type: 'url' },
				{ url: 'https://example.com/a.mp3', name: 'Call', type: 'audio' },
			],
		});
		const get = await suite.run({
			resource: 'researcher',
			operation: 'get',
			researcherId: id,
			fields: ['name', 'files', 'output_format'],
		});
		const request = onlyRequest(get, suite.sandbox.token);
		expect(request.query.fields).toBe('name,files,output_format');
		expect((jsonOf(get)[0].files as unknown[]).length).toBe(3);
	});

	it('rejects a file whose URL is not a web address, naming its position', async () => {
		const run = await suite.run({
			resource: 'researcher',
			operation: 'addFiles',
			researcherId: 'r-1',
			filesToAdd: {
				file: [
					{ url: 'https://ok.example', name: 'a', type: 'url' },
					{ url: 'notes.txt', name: 'b', type: 'document' },
				],
			},
		});
		expect(run.requests).toHaveLength(0);
		expect(run.error?.message).toBe('Files: file 2: "notes.txt" is not a web address');
	});

	it('runs without waiting: returns as soon as the run starts', async () => {
		const { id } = await createResearcher();
		const run = await suite.run({ resource: 'researcher', operation: 'run', researcherId: id });
		const put = onlyRequest(run, suite.sandbox.token);
		expect([put.method, put.path]).toEqual(['PUT', `/v1/researcher/${id}`]);
		expect(sentBody(put)).toEqual({ status: 1 });
		expect(jsonOf(run)[0].output ?? null).toBeNull();
	});

	it('runs and waits for completion, then returns the output', async () => {
		const { id } = await createResearcher();
		const run = await suite.run({
			resource: 'researcher',
			operation: 'run',
			// Mapped with spaces around it, as from a sheet: the run request and each poll have it trimmed.
			researcherId: ` ${id}\n`,
			runOptions: { waitForCompletion: true, pollInterval: 1, timeout: 1 },
		});
		expect(run.error).toBeUndefined();
		expect([run.requests[0].method, run.requests[0].path]).toEqual(['PUT', `/v1/researcher/${id}`]);
		const polls = run.requests.slice(1);
		expect(polls.length).toBeGreaterThanOrEqual(1);
		polls.forEach((poll) =>
			expect([poll.method, poll.path, poll.valid]).toEqual(['GET', `/v1/researcher/${id}`, true]),
		);
		const [researcher] = jsonOf(run);
		expect(researcher).toMatchObject({ id, progress: 100 });
		expect(typeof researcher.output).toBe('string');
		expect(String(researcher.output).length).toBeGreaterThan(0);
		expect(researcher.polls).toBe(polls.length);
	});

	it("says in Get's `complete` whether the run is finished, by Wait for Completion's rule", async () => {
		const { id } = await createResearcher();
		const get = async (fields: string[] = []) =>
			jsonOf(
				await suite.run({ resource: 'researcher', operation: 'get', researcherId: id, fields }),
			)[0];
		expect(await get()).toMatchObject({ progress: 0, complete: false });
		await suite.run({ resource: 'researcher', operation: 'run', researcherId: id });
		expect((await get()).complete).toBe(false);
		let researcher = await get();
		for (let reads = 0; researcher.complete !== true && reads < 50; reads++) {
			await new Promise((resolve) => setTimeout(resolve, 100));
			researcher = await get();
		}
		expect(researcher).toMatchObject({ progress: 100, complete: true });
		expect(String(researcher.output).length).toBeGreaterThan(0);
		// With Fields that leave out Progress or Output, the rule cannot be applied: no guess.
		expect(await get(['progress', 'output', 'name'])).toMatchObject({ complete: true });
		expect(await get(['progress', 'name'])).not.toHaveProperty('complete');
		// Fields typed as text: the service gets both fields, so the rule applies.
		const typed = jsonOf(
			await suite.run({
				resource: 'researcher',
				operation: 'get',
				researcherId: id,
				fields: 'output, progress',
			}),
		)[0];
		expect(typed).toMatchObject({ complete: true });
	});
});
