import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { PoseWorkerPool, PoseWorkerPoolOptions } from '@kinetrace/mocap/pose/pose-worker-pool';
import { PosePoolKeeper } from '../src/pose-pool-keeper.ts';

/** Pools that only record their model and whether they were closed (starting real ones loads the model: seconds). */
function fakePools() {
  const started: { model: string; closed: boolean }[] = [];
  const start = async (options: PoseWorkerPoolOptions) => {
    const pool = { model: options.model, closed: false, close: async () => void (pool.closed = true) };
    started.push(pool);
    return pool as unknown as PoseWorkerPool;
  };
  return { started, start };
}

describe('PosePoolKeeper: one pose pool kept warm between trials', () => {
  it('hands the same pool to trial after trial, and closes it once idle', async () => {
    const { started, start } = fakePools();
    const keeper = new PosePoolKeeper(50, start);
    const first = await keeper.use('blazepose-full', async (pool) => pool);
    const second = await keeper.use('blazepose-full', async (pool) => pool);
    expect(second).toBe(first);
    expect(started).toEqual([{ model: 'blazepose-full', closed: false, close: expect.any(Function) }]);
    await sleep(120);
    expect(started[0].closed).toBe(true);
    expect(keeper.warm).toBe(false);
    await keeper.use('blazepose-full', async () => undefined);
    expect(started).toHaveLength(2);
    await keeper.close();
    expect(started[1].closed).toBe(true);
  });

  it('starts a fresh pool after a failed run, and for another model', async () => {
    const { started, start } = fakePools();
    const keeper = new PosePoolKeeper(60_000, start);
    await expect(
      keeper.use('blazepose-full', async () => Promise.reject(new Error('a pose worker stopped'))),
    ).rejects.toThrow('a pose worker stopped');
    expect(started[0].closed).toBe(true);
    await keeper.use('blazepose-full', async () => undefined);
    await keeper.use('blazepose-lite', async () => undefined);
    expect(started.map(({ model, closed }) => [model, closed])).toEqual([
      ['blazepose-full', true],
      ['blazepose-full', true],
      ['blazepose-lite', false],
    ]);
    await keeper.close();
    expect(started[2].closed).toBe(true);
  });

  it('closed while a trial runs: the trial keeps its pool until it ends; later trials get their own', async () => {
    const { started, start } = fakePools();
    const keeper = new PosePoolKeeper(60_000, start);
    let finish!: () => void;
    const running = keeper.use('blazepose-full', () => new Promise<void>((resolve) => (finish = resolve)));
    await sleep(0);
    await keeper.close();
    expect(started[0].closed).toBe(false);
    finish();
    await running;
    expect(started[0].closed).toBe(true);
    await keeper.use('blazepose-full', async () => undefined);
    expect(started.map(({ closed }) => closed)).toEqual([true, true]);
  });

  it("says whether a model's run would share the kept pool, not start one beside another model's busy one", async () => {
    const { start } = fakePools();
    const keeper = new PosePoolKeeper(60_000, start);
    expect(keeper.keeps('blazepose-lite')).toBe(true);
    let finish!: () => void;
    const running = keeper.use('blazepose-full', () => new Promise<void>((resolve) => (finish = resolve)));
    await sleep(0);
    expect([keeper.keeps('blazepose-full'), keeper.keeps('blazepose-lite')]).toEqual([true, false]);
    finish();
    await running;
    expect(keeper.keeps('blazepose-lite')).toBe(true);
    await keeper.close();
    expect(keeper.keeps('blazepose-full')).toBe(false);
  });
});
