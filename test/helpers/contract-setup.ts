import { rmSync } from 'fs';

import { RESULTS_DIR } from '../reliability/results';
import { CONTRACT_USAGE_DIR } from './contract-usage';

/** Each run starts from no results, so that the checks at its end read only its own. */
export default function clearRunResults(): void {
	rmSync(CONTRACT_USAGE_DIR, { recursive: true, force: true });
	rmSync(RESULTS_DIR, { recursive: true, force: true });
}
