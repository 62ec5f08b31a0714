import { join } from 'path';

/** Where each test file leaves the contract operations its requests reached (see contract-teardown). */
export const CONTRACT_USAGE_DIR = join(__dirname, '..', '..', '.tmp', 'contract-usage');
