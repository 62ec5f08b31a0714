import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

/**
 * Each channel sends the message through its plain send operation (same fields, same checks):
 * `parameters` are fixed for it, `textParameter` receives the message with the link.
 */
export const SEND_AND_WAIT_CHANNELS: Record<string, { resource: string; operation: string; parameters: IDataObject; textParameter: string }> = {
	sms: { resource: 'messaging', operation: 'sendSms', parameters: {}, textParameter: 'message' },
	socialnet: { resource: 'messaging', operation: 'sendSocialnet', parameters: { socialnetType: 'text' }, textParameter: 'socialnetText' },
};

/** Shows a plain send's field for Send and Wait too, for its channel only. */
export function alsoForChannel(property: INodeProperties, channel: string): INodeProperties {
	const show = property.displayOptions?.show ?? {};
	return {
		...property,
		displayOptions: {
			...property.displayOptions,
			show: { ...show, operation: [...((show.operation as string[]) ?? []), SEND_AND_WAIT_OPERATION] },
			// `channel` exists for Send and Wait only, so hiding by it leaves the plain send alone.
			hide: { channel: Object.keys(SEND_AND_WAIT_CHANNELS).filter((other) => other !== channel) },
		},
	};
}

