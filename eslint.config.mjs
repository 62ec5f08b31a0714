// n8n's own lint, exactly as its CLI (`n8n-node lint`) and starter configure it: rule sets,
// parsers (TypeScript's for package.json too) and file patterns. A local variant is how rules
// came to check nothing on package.json; test/verification.test.ts keeps every file covered.
import { config } from '@n8n/node-cli/eslint';

export default config;
