import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PoseWorkerPool } from '../../src/pose/pose-worker-pool.ts';
import { BACKGROUND_NICE_INCREMENT } from '../../src/runtime/thread-priority.ts';

/** The nice value of each of this process's threads, by thread id (proc(5): field 19 of /proc/<pid>/task/<tid>/stat). */
function niceByThread(): Map<number, number> {
  const threads = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // The thread's name, in parentheses, may hold spaces: fields are counted after its closing one (field 3 on).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    threads.set(Number(tid), Number(fields[19 - 3]));
  }
  return threads;
}

describe.skipIf(process.platform !== 'linux')("a server's pose threads run below its API thread (issue 24)", () => {
  it('lowers only the pool threads started with lowerPriority, not the thread that started them', async () => {
    const apiNice = niceByThread().get(process.pid)!;
    const lowered = (threads: Map<number, number>) =>
      [...threads.values()].filter((nice) => nice === Math.min(19, apiNice + BACKGROUND_NICE_INCREMENT)).length;
    const before = lowered(niceByThread());

    const usual = await PoseWorkerPool.start({ model: 'blazepose-lite', workers: 1 });
    try {
      expect(lowered(niceByThread())).toBe(before);
    } finally {
      await usual.close();
    }

    const background = await PoseWorkerPool.start({ model: 'blazepose-lite', workers: 1, lowerPriority: true });
    try {
      const threads = niceByThread();
      expect(lowered(threads)).toBe(before + 1);
      expect(threads.get(process.pid)).toBe(apiNice);
    } finally {
      await background.close();
    }
  });
});
