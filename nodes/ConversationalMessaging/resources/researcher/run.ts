import type {
	IDataObject,
	IExecuteSingleFunctions,
	IN8nHttpFullResponse,
	INodeExecutionData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { collection, field } from '../../form/fields';
import type { OperationSpec } from '../../form/operations';
import { requestSettings, CREDENTIAL_NAME } from '../../service/account';
import type { RequestOptionsParameter } from '../../n8nInternals';
import { REQUEST_OPTIONS } from '../../n8nInternals';
import { clock } from '../../clock';
import type { ServiceFailure } from '../../service/envelope';
import { envelopePayload, failureError, readEnvelope } from '../../service/envelope';
import { hostOf, networkFailure } from '../../service/network';
import { NO_REDIRECTS } from '../../service/redirects';
import { asNodeError } from '../../sendLoop/send';
import { researchIsComplete } from './completion';
import { researcherIdField, researcherUrl } from './get';

const POLL_INTERVAL_GROWS_AFTER_MS = 60_000;
const POLL_GROWTH = 1.5;
const MAX_POLL_INTERVAL_MS = 60_000;

/** The builder's interval for the first minute, then growing. */
export function nextPollDelay(
	baseMs: number,
	previousMs: number | undefined,
	waitedMs: number,
): number {
	if (previousMs === undefined || waitedMs < POLL_INTERVAL_GROWS_AFTER_MS) return baseMs;
	return Math.min(previousMs * POLL_GROWTH, Math.max(MAX_POLL_INTERVAL_MS, baseMs));
}

/** Said first of a progress check that failed: the run was started all the same. */
const RUN_GOES_ON =
	'The research was started and goes on in the service: read its result with Researcher > Get rather than running Run again.';

/** One progress check, with the node's Request Options, as RoutingNode sent the run request. */
async function readResearcher(this: IExecuteSingleFunctions, id: string): Promise<IDataObject> {
	const credentials = await this.getCredentials(CREDENTIAL_NAME);
	// A failure in its words for a request that is not sent again (no advice on sending or running
	// again), after RUN_GOES_ON.
	const checkFailed = async (failure: ServiceFailure) => {
		const description = `${RUN_GOES_ON} ${failure.unlessSentAgain ?? failure.description}`.trim();
		return await failureError.call(this, { ...failure, description }, credentials);
	};
	let response: IN8nHttpFullResponse;
	try {
		const options = this.getNodeParameter(REQUEST_OPTIONS, {}) as RequestOptionsParameter;
		response = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_NAME, {
			method: 'GET',
			url: researcherUrl.replace('{researcherId}', encodeURIComponent(id)),
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			...NO_REDIRECTS,
			...requestSettings(this.getNode(), options, credentials, this.getItemIndex()),
		})) as IN8nHttpFullResponse;
	} catch (error) {
		const network = networkFailure(error, hostOf(credentials.baseUrl));
		if (network) throw await checkFailed(network.failure);
		// A setting read wrong (a proxy address): what it says, after RUN_GOES_ON.
		const failed = asNodeError(this, error, this.getItemIndex());
		failed.description = `${RUN_GOES_ON} ${failed.description ?? ''}`.trim();
		throw failed;
	}
	const reading = readEnvelope(response);
	if ('failure' in reading) throw await checkFailed(reading.failure);
	return reading.payload;
}

export async function waitForResearch(
	this: IExecuteSingleFunctions,
	_items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	const started = await envelopePayload.call(this, response);
	const options = this.getNodeParameter('runOptions', {}) as IDataObject;
	const pairedItem = { item: this.getItemIndex() };
	if (!options.waitForCompletion) return [{ json: started, pairedItem }];

	const id = String(this.getNodeParameter('researcherId')).trim();
	const baseMs = Number(options.pollInterval ?? 5) * 1000;
	const timeoutMs = Number(options.timeout ?? 30) * 60_000;
	const startedAt = clock.now();
	let delay: number | undefined;
	for (let polls = 1; ; polls++) {
		const waited = clock.now() - startedAt;
		delay = nextPollDelay(baseMs, delay, waited);
		await clock.sleep(Math.max(0, Math.min(delay, timeoutMs - waited)));
		if (this.getExecutionCancelSignal()?.aborted)
			throw new NodeOperationError(
				this.getNode(),
				'The execution was cancelled while waiting for the researcher',
			);
		const researcher = await readResearcher.call(this, id);
		if (researchIsComplete(researcher)) {
			const waitedSeconds = Math.round((clock.now() - startedAt) / 1000);
			return [{ json: { id, ...researcher, waitedSeconds, polls }, pairedItem }];
		}
		if (clock.now() - startedAt >= timeoutMs)
			throw new NodeOperationError(
				this.getNode(),
				`The researcher was still running after ${options.timeout ?? 30} min (progress ${String(researcher.progress ?? 'unknown')})`,
				{
					description:
						'The run goes on in the service. Raise Give Up After (Minutes) under Options, or read the result later with Researcher > Get.',
					itemIndex: this.getItemIndex(),
				},
			);
	}
}

export const researcherRunOperation: OperationSpec = {
	name: 'Run',
	value: 'run',
	action: 'Run a researcher',
	description: 'Start a researcher run; optionally wait for it to finish and return its output',
	builderHint: {
		propertyHint:
			"Wait for Completion keeps the execution running while it polls: fine for short runs. For long or many runs, turn it off and loop n8n's Wait node, Researcher > Get (Fields empty, or with Output and Progress) and an If on the output's complete field, with a cap on the loops.",
	},
	method: 'PUT',
	url: researcherUrl,
	body: { status: 1 },
	postReceive: [waitForResearch],
	fields: [
		researcherIdField,
		collection(
			'runOptions',
			'Options',
			{},
			[
				field({
					displayName: 'Wait for Completion',
					name: 'waitForCompletion',
					type: 'boolean',
					// Added from Options to be used.
					default: true,
					description:
						'Whether to wait until the run finishes and return the researcher with its output, instead of returning as soon as it starts',
				}),
				field({
					displayName: 'Poll Interval (Seconds)',
					name: 'pollInterval',
					type: 'number',
					typeOptions: { minValue: 1 },
					default: 5,
					description:
						'How often to check the run while waiting. After the first minute the interval grows, up to one minute.',
					displayOptions: { show: { waitForCompletion: [true] } },
				}),
				field({
					displayName: 'Give Up After (Minutes)',
					name: 'timeout',
					type: 'number',
					typeOptions: { minValue: 1 },
					default: 30,
					description:
						'How long to wait for the run at most before the node fails; the run itself goes on in the service',
					displayOptions: { show: { waitForCompletion: [true] } },
				}),
			],
			{
				description:
					'Whether the node waits for the research to finish, how often it checks, and for how long',
			},
		),
	],
};
