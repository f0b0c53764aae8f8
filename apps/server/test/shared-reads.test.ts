/**
 * Reads shared while they run (repositories/change-cache.ts, on PostgreSQL; issue 13 "Load"): callers of one
 * key share queries, yet each gets an answer read after its call, and nothing is kept once read.
 */
import { expect, it } from 'vitest';
import { createSharedReads } from '../src/repositories/change-cache.ts';

/** A read the test answers by hand, numbered in the order the reads started. */
function manualReads() {
  const started: { answer(value: string): void; fail(error: Error): void }[] = [];
  const read = () =>
    new Promise<string>((resolve, reject) => {
      started.push({ answer: resolve, fail: reject });
    });
  return { read, started };
}
const noOwner = () => undefined;
const settle = () => new Promise((resolve) => setImmediate(resolve));

it('gives callers who come while a read runs one shared read that starts after it, never the one under way', async () => {
  const shared = createSharedReads<string>();
  const { read, started } = manualReads();

  const first = shared.get('list', read, noOwner);
  const second = shared.get('list', read, noOwner);
  const third = shared.get('list', read, noOwner);
  // The second and third callers may have seen a write the running read began before: they wait.
  expect(started).toHaveLength(1);

  started[0].answer('as of the first call');
  await expect(first).resolves.toBe('as of the first call');
  await settle();
  expect(started).toHaveLength(2);
  started[1].answer('read after the later calls');
  await expect(second).resolves.toBe('read after the later calls');
  await expect(third).resolves.toBe('read after the later calls');

  // Nothing is kept: the next call reads again, and other keys never share.
  const again = shared.get('list', read, noOwner);
  const otherKey = shared.get('other', read, noOwner);
  expect(started).toHaveLength(4);
  started[2].answer('fresh');
  started[3].answer('other');
  await expect(again).resolves.toBe('fresh');
  await expect(otherKey).resolves.toBe('other');
});

it('fails only the callers of a failed read; the read after it still runs, and later calls read again', async () => {
  const shared = createSharedReads<string>();
  const { read, started } = manualReads();

  const failing = shared.get('token', read, noOwner);
  const waiting = shared.get('token', read, noOwner);
  started[0].fail(new Error('connection lost'));
  await expect(failing).rejects.toThrow('connection lost');
  await settle();
  started[1].answer('signed in');
  await expect(waiting).resolves.toBe('signed in');

  const later = shared.get('token', read, noOwner);
  expect(started).toHaveLength(3);
  started[2].answer('signed in again');
  await expect(later).resolves.toBe('signed in again');
});
