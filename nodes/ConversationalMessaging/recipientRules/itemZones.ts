import type { IExecuteFunctions } from 'n8n-workflow';

import type { ItemContext } from '../checks/checks';
import { itemError } from '../checks/checks';
import type { PhoneReading } from '../checks/phone/reading';
import { homeCountry } from '../checks/phone/reading';
import { zonesOfCountry, zonesOfNumber } from '../checks/phone/timeZones';
import type { FieldValues } from '../sendLoop/itemRequest';
import { isTimeZone } from './localTime';

/** The fix for a Time Zone Intl does not know, given (fixed) or an item's (by expression). */
export const TIME_ZONE_FIX =
	"Send Window > Time Zone: use an IANA time zone name such as America/New_York, Europe/Madrid or Asia/Kolkata, or leave it empty to read the zone from the phone number (else the Default Country's, else the workflow's).";

/**
 * The item's zones: its Time Zone, else its phone number's, else its Default Country's, else the
 * workflow's (the socialnet messenger gives no number).
 */
export async function zonesOf(
	fns: IExecuteFunctions,
	timeZones: FieldValues | undefined,
	item: ItemContext,
	phone: PhoneReading | undefined,
): Promise<{ zones: readonly string[]; from: string }> {
	const itemIndex = item.getItemIndex();
	if (timeZones) {
		const reading = await timeZones.read(itemIndex);
		if ('error' in reading) throw reading.error;
		const [value] = reading.values;
		const zone = typeof value === 'string' ? value.trim() : value;
		if (zone !== '' && zone !== undefined && zone !== null) {
			if (typeof zone === 'string' && isTimeZone(zone))
				return { zones: [zone], from: 'its Time Zone' };
			throw itemError(item, `Time Zone: "${String(zone)}" is not a time zone`, TIME_ZONE_FIX);
		}
	}
	if (phone) {
		const zones = zonesOfNumber(phone.digits);
		if (zones.length)
			return { zones, from: `the phone number's prefix (+${phone.digits.slice(0, 4)}...)` };
	}
	const home = await homeCountry(item, (problem, fix) => {
		throw itemError(item, `Default Country: ${problem}`, fix);
	});
	const zones = home ? zonesOfCountry(home) : [];
	if (zones.length) return { zones, from: `the Default Country (${home})` };
	return { zones: [fns.getTimezone()], from: "the workflow's time zone" };
}
