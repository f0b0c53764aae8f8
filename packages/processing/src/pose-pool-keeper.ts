import { PoseWorkerPool, type PoseWorkerPoolOptions } from '@kinetrace/mocap/pose/pose-worker-pool';
import type { PoseModelName } from '@kinetrace/mocap/session/types';

interface Kept {
  model: PoseModelName;
  pool: Promise<PoseWorkerPool>;
  users: number;
  /** No longer handed out: closed as soon as its last user is done. */
  retired: boolean;
  idleTimer?: NodeJS.Timeout;
}

/**
 * One pose worker pool kept warm between the trials a server processes, its threads below the API's
 * priority. Starting a pool loads the
 * model in every worker (about a second on an idle 2-core machine, several under load), which a
 * session's trials, processed one after another, would otherwise pay each time; the pool is closed
 * after `idleMs` without a trial, so an idle server holds no model in memory. A run that failed
 * may have left its workers broken: that pool is not handed out again.
 */
export class PosePoolKeeper {
  private kept: Kept | undefined;
  private stopped = false;

  constructor(
    private readonly idleMs: number,
    private readonly start: (options: PoseWorkerPoolOptions) => Promise<PoseWorkerPool> = (options) =>
      PoseWorkerPool.start(options),
  ) {}

  /** Runs `work` with a pool of `model`: the kept one, or one for this run only (after close, or while another model's is busy). */
  async use<T>(model: PoseModelName, work: (pool: PoseWorkerPool) => Promise<T>): Promise<T> {
    if (!this.keeps(model)) {
      const pool = await this.start({ model, lowerPriority: true });
      try {
        return await work(pool);
      } finally {
        await pool.close();
      }
    }
    if (this.kept?.model !== model) {
      if (this.kept) void this.retire(this.kept);
      this.kept = { model, pool: this.start({ model, lowerPriority: true }), users: 0, retired: false };
    }
    const kept = this.kept;
    clearTimeout(kept.idleTimer);
    kept.users++;
    try {
      return await work(await kept.pool);
    } catch (error) {
      kept.retired = true;
      throw error;
    } finally {
      kept.users--;
      if (kept.retired) await this.retire(kept);
      else if (kept.users === 0) {
        kept.idleTimer = setTimeout(() => void this.retire(kept), this.idleMs);
        kept.idleTimer.unref();
      }
    }
  }

  /** Whether use(model) runs on the kept pool (or starts it), not on a pool of its own beside another model's busy one. */
  keeps(model: PoseModelName): boolean {
    return !this.stopped && !(this.kept && this.kept.model !== model && this.kept.users > 0);
  }

  /** Whether a pool is kept warm now (for tests and the log). */
  get warm(): boolean {
    return this.kept !== undefined;
  }

  /** Closes the kept pool (at once when unused, else when its run ends); later runs get a pool of their own. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.kept) await this.retire(this.kept);
  }

  /** Hands `kept` out no more, and closes its workers once no run uses them (a run's end retires it again). */
  private async retire(kept: Kept): Promise<void> {
    kept.retired = true;
    clearTimeout(kept.idleTimer);
    if (this.kept === kept) this.kept = undefined;
    if (kept.users > 0) return;
    const pool = await kept.pool.catch(() => undefined);
    await pool?.close();
  }
}
