import type {
	IAuthenticate,
	IAuthenticateRuleResponseCode,
	IAuthenticateRuleResponseSuccessBody,
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { credentialDefaultCountry } from '../nodes/ConversationalMessaging/checks/phone/defaultCountry';
import { apiBaseUrl } from '../nodes/ConversationalMessaging/service/account';
import {
	NO_REDIRECTS,
	REDIRECT_ADVICE,
	REDIRECT_STATUSES,
} from '../nodes/ConversationalMessaging/service/redirects';

/** Methods whose body n8n drops, so the token has to travel in the query string. */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The service reads the token from the JSON body (the usual way) or from the `token` query
 * parameter (for calls without a body). It never reads a header, so none is sent; a request
 * that has a body never carries the token in its URL, where proxies and logs would keep it.
 * It also sets the base URL from the credential: the node's requestDefaults have none, so that
 * n8n need not evaluate an expression for it on every item.
 */
export async function authenticateWithToken(
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const token = String(credentials.apiToken ?? '');
	const baseURL = apiBaseUrl(requestOptions.baseURL ?? credentials.baseUrl);
	if (BODYLESS_METHODS.has((requestOptions.method ?? 'GET').toUpperCase()))
		return { ...requestOptions, baseURL, qs: { ...requestOptions.qs, token } };
	const { body } = requestOptions;
	const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {};
	return { ...requestOptions, baseURL, body: { ...fields, token } };
}

const UNAUTHORIZED_HINT =
	'Unauthorized: the service rejected the API token. Copy the current token from the dashboard (Settings > API); a rotated token stops working at once.';

/**
 * How n8n's credential tester judges the answer: a responseCode rule names an HTTP error (here
 * a redirect, refused as one), a responseSuccessBody rule reads the envelope of an answer. The
 * tester reads both kinds from one list; n8n's type asks for a list of one kind only.
 */
const TEST_RULES: Array<IAuthenticateRuleResponseCode | IAuthenticateRuleResponseSuccessBody> = [
	...REDIRECT_STATUSES.map((status) => ({
		type: 'responseCode' as const,
		properties: {
			value: status,
			message: `The Base URL answered ${status}, a redirect: the test was not carried out there. ${REDIRECT_ADVICE}`,
		},
	})),
	{
		type: 'responseSuccessBody',
		properties: { key: 'statusCode', value: 401, message: UNAUTHORIZED_HINT },
	},
	{
		type: 'responseSuccessBody',
		properties: { key: 'body.message', value: 'Unauthorized', message: UNAUTHORIZED_HINT },
	},
	{
		type: 'responseSuccessBody',
		properties: {
			key: 'body.err',
			value: true,
			message: 'The service answered with an error. Check the Base URL and the API token.',
		},
	},
	{
		type: 'responseSuccessBody',
		properties: {
			key: 'body.err',
			value: undefined,
			// Also what n8n 1.x says of a redirect: its credential test cannot keep 3xx apart.
			message: `The Base URL did not answer like the Conversational Messaging API. Check the Base URL: the API's address, not the dashboard's. ${REDIRECT_ADVICE}`,
		},
	},
];

export class ConversationalMessagingApi implements ICredentialType {
	name = 'conversationalMessagingApi';

	displayName = 'Conversational Messaging API';

	icon: Icon = {
		light: 'file:../nodes/ConversationalMessaging/conversationalMessaging.svg',
		dark: 'file:../nodes/ConversationalMessaging/conversationalMessaging.dark.svg',
	};

	documentationUrl =
		'https://github.com/conversational-messaging/n8n-nodes-conversational-messaging#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description:
				"Address of the Conversational Messaging API, without /v1 (a trailing / or /v1 is ignored). Use https://: the token travels in each request's body, so with http:// it crosses the network in clear text (fine only on this machine, e.g. the local sandbox at http://127.0.0.1:8787). Requests never follow a redirect: enter the final address.",
		},
		{
			displayName: 'API Token',
			name: 'apiToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The client API token, from the dashboard settings (API section)',
		},
		credentialDefaultCountry,
	];

	authenticate: IAuthenticate = authenticateWithToken;

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/v1/client',
			method: 'GET',
			// Read every answer so that the rules below can judge the envelope, which is what
			// carries the service's verdict (a 401 may come on HTTP 200); a redirect is not
			// followed and fails as an HTTP error, which the responseCode rules name.
			ignoreHttpStatusErrors: { ignore: true, except: REDIRECT_STATUSES },
			...NO_REDIRECTS,
		},
		rules: TEST_RULES as ICredentialTestRequest['rules'],
	};
}
