// The node tier's first setup file (jest.config.js): jest-light-runner loads the test files with
// Node's own module system, in its worker threads, which read TypeScript through tsx from here on.
// tsx's API registers its hooks in this thread (both: `import` and `require`); `import 'tsx'`
// would not on Node 20, where tsx registers its `import` hooks on the main thread only.
import { register as registerRequire } from 'tsx/cjs/api';
import { register as registerImport } from 'tsx/esm/api';

registerRequire();
registerImport();
