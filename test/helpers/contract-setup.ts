import { rmSync } from 'fs';

import { CONTRACT_USAGE_DIR } from './contract-usage';

export default function clearContractUsage(): void {
	rmSync(CONTRACT_USAGE_DIR, { recursive: true, force: true });
}
