import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ERRORS, type Lock, type Locker, type RequestRelease } from '@tus/server';
import type { UploadLocksRepository } from '../repositories/upload-locks-repository.ts';

/** How long a request waits for an upload's lock before tus answers that it could not get it (MemoryLocker's 30 s). */
const ACQUIRE_TIMEOUT_MS = 30_000;
/** How often a waiting request asks again. */
const RETRY_MS = 250;
/**
 * How often a holder renews its lease and reads whether another request asked for the lock: a retry from a
 * phone whose connection dropped waits this long, plus tus's lock drain (3 s), for the dead request to let go.
 */
const RENEW_MS = 1000;
/** A lease not renewed for this long belongs to a server that is gone (killed mid-upload): the next request takes it. */
const LEASE_S = 10;

/**
 * tus's upload locks for several server processes on one PostgreSQL database: a lock is a row
 * (repositories/upload-locks-repository.ts) rather than an advisory lock, which would hold one of the pool's
 * connections for the whole of an upload. As with tus's MemoryLocker, a request finding the lock held asks its
 * holder to release it (the holder's `requestRelease` cancels its request, which stops writing after tus's
 * drain time) and takes it once released, or fails after ACQUIRE_TIMEOUT_MS; the retry of a phone reaching
 * another server therefore waits for the first server's request to stop writing, then finds the upload's
 * offset as that one left it.
 */
export function createSharedUploadLocker(locks: UploadLocksRepository): Locker {
  return { newLock: (uploadId) => sharedLock(locks, uploadId) };
}

function sharedLock(locks: UploadLocksRepository, uploadId: string): Lock {
  const holder = randomUUID();
  const renewing = new AbortController();

  /**
   * Renews the lease until unlocked, also while the request drains; asks the request once to let go when
   * another asked for the lock or the lease was lost.
   */
  async function renewWhileHeld(requestRelease: RequestRelease): Promise<void> {
    let asked = false;
    for (;;) {
      await sleep(RENEW_MS, undefined, { signal: renewing.signal, ref: false }).catch(() => undefined);
      if (renewing.signal.aborted) return;
      // A lease that cannot be renewed (the database unreachable) may pass to another server: stop writing too.
      const renewed = await locks.renew(uploadId, holder, LEASE_S).catch(() => undefined);
      if (!asked && (!renewed || renewed.releaseRequested)) {
        asked = true;
        await requestRelease();
      }
    }
  }

  return {
    async lock(signal, requestRelease) {
      const deadline = Date.now() + ACQUIRE_TIMEOUT_MS;
      while (!(await locks.takeOrAskRelease(uploadId, holder, LEASE_S))) {
        if (signal.aborted || Date.now() >= deadline) throw ERRORS.ERR_LOCK_TIMEOUT;
        await sleep(RETRY_MS, undefined, { signal }).catch(() => undefined);
      }
      void renewWhileHeld(requestRelease);
    },
    async unlock() {
      renewing.abort();
      await locks.release(uploadId, holder);
    },
  };
}
