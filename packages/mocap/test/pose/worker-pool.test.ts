import { describe, expect, it } from 'vitest';
import type { PoseModelName } from '../../src/pose/pose-model.ts';
import { PoseWorkerPool } from '../../src/pose/pose-worker-pool.ts';

describe('pose worker pool', () => {
  it('refuses an unknown model with the names it knows', async () => {
    await expect(PoseWorkerPool.start({ model: 'openpose' as PoseModelName, workers: 1 })).rejects.toThrow(
      /Unknown pose model "openpose": choose one of blazepose-lite, blazepose-full, blazepose-heavy/,
    );
  });

  it('answers "not found" for an image without anyone, from a worker thread', async () => {
    const pool = await PoseWorkerPool.start({ model: 'blazepose-lite', workers: 1 });
    try {
      const image = { width: 64, height: 48, data: new Uint8Array(64 * 48 * 3).fill(128) };
      const estimate = await pool.infer(image, { region: null, preferNear: null });
      expect(estimate.found).toBe(false);
      expect(estimate.trackingRegion).toBeNull();
      expect(Array.from(estimate.keypoints).every(Number.isNaN)).toBe(true);
    } finally {
      await pool.close();
    }
  });
});
