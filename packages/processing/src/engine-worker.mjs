// Entry of a trial's engine thread (engine-thread.ts). Workers start without the parent's TypeScript
// loader when the parent is a test runner or a bundler, so register tsx here, then load the TypeScript
// worker (as the engine's pose workers do, packages/mocap/src/pose/pose-worker.mjs).
import { register } from 'tsx/esm/api';

register();
await import('./engine-worker.ts');
