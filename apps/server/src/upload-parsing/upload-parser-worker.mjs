// Entry of an upload parser thread. Workers start without the parent's TypeScript loader when the
// parent is a test runner or a bundler, so register tsx here, then load the TypeScript worker
// (as the analysis and pose workers do).
import { register } from 'tsx/esm/api';

register();
await import('./upload-parser-worker.ts');
