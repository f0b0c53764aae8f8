import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Real data, real models, real browsers: generous per-test limits, never timing assertions.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    projects: [
      { extends: true, test: { name: 'mocap', include: ['packages/mocap/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'contracts', include: ['packages/contracts/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'processing', include: ['packages/processing/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'server', include: ['apps/server/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'web', include: ['apps/web/test/**/*.test.ts'], fileParallelism: false } },
    ],
  },
});
