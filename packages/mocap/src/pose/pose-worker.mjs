// Entry of a pose worker thread. Workers start without the parent's TypeScript loader when the
// parent is a test runner or a bundler, so register tsx here, then load the TypeScript worker.
import { register } from 'tsx/esm/api';

register();
await import('./pose-worker.ts');
