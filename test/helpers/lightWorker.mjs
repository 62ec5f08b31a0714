// The set-up of each worker process of the node tier's runner, jest-light-runner (jest.config.js).
// The test files load through Node's own module system: TypeScript through tsx from here on.
import 'tsx';

// When the run is over, the runner disconnects from its workers and lets them end on their own; an
// open handle (a timer, a socket an n8n helper left) would then hold one, and jest with it, for up
// to a minute. Every result has been sent by then.
process.on('disconnect', () => process.exit(0));
