// The node tier's first setup file (jest.config.js): jest-light-runner loads the test files with
// Node's own module system, which reads TypeScript through tsx from here on.
import 'tsx';
