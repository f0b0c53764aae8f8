import { getPriority, setPriority } from 'node:os';

/**
 * How much a background thread lowers its priority: nice 10 weighs about a tenth of nice 0 in Linux's
 * scheduler (sched_prio_to_weight: 1024 against 110), so a server's API thread that wakes while a trial's
 * threads fill every core runs within a time slice instead of waiting its turn among them.
 */
export const BACKGROUND_NICE_INCREMENT = 10;

/**
 * Lowers the calling thread's scheduling priority, and that of the processes it starts (ffmpeg inherits
 * it). Only on Linux, where the nice value belongs to each thread (setpriority(2), "Bugs"): elsewhere it
 * belongs to the process and would slow the API thread too. Lowering needs no privilege; a refusal
 * (a sandbox's seccomp) leaves the thread as it was. Answers the nice value the thread runs at.
 */
export function lowerThreadPriority(increment = BACKGROUND_NICE_INCREMENT): number {
  if (process.platform !== 'linux') return getPriority();
  try {
    // pid 0 is the calling thread on Linux; 19 is the lowest priority there is.
    setPriority(0, Math.min(19, getPriority(0) + increment));
  } catch {
    // Running at the usual priority only costs the API some latency under load.
  }
  return getPriority(0);
}
