import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, WAIT_INDEFINITELY } from 'n8n-workflow';

const UNIT_MS: Record<string, number> = { seconds: 1000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

interface LimitWaitTime {
	limitType?: 'afterTimeInterval' | 'atSpecifiedTime';
	resumeAmount?: number;
	resumeUnit?: string;
	maxDateAndTime?: string;
}

/** Until when the execution waits: for ever, unless Options > Limit Wait Time says otherwise (as n8n's own nodes). */
export function waitTill(fns: IExecuteFunctions): Date {
	const limit = fns.getNodeParameter('options.limitWaitTime.values', 0, {}) as LimitWaitTime;
	if (!limit.limitType) return WAIT_INDEFINITELY;
	if (limit.limitType === 'atSpecifiedTime') {
		const at = new Date(String(limit.maxDateAndTime ?? ''));
		if (Number.isNaN(at.getTime())) {
			throw new NodeOperationError(fns.getNode(), 'Limit Wait Time: Max Date and Time is not a date', { description: 'Pick a date and time, or remove Limit Wait Time.' });
		}
		return at;
	}
	const amount = Number(limit.resumeAmount ?? 0);
	const unit = UNIT_MS[limit.resumeUnit ?? 'hours'];
	if (!(amount >= 0) || !unit) {
		throw new NodeOperationError(fns.getNode(), 'Limit Wait Time: the amount must be a number of 0 or more', { description: 'Enter how long to wait, or remove Limit Wait Time.' });
	}
	return new Date(Date.now() + amount * unit);
}
