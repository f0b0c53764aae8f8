import { Worker } from 'node:worker_threads';
import type { UploadParserName, UploadParsers } from './upload-parsers.ts';

type InputOf<N extends UploadParserName> = Parameters<UploadParsers[N]>[0];
type OutputOf<N extends UploadParserName> = Awaited<ReturnType<UploadParsers[N]>>;

export type UploadParserRequest = { [N in UploadParserName]: { parser: N; input: InputOf<N> } }[UploadParserName];
export type UploadParserReply =
  { status: 'ready' } | { status: 'done'; value: unknown } | { status: 'refused'; errorName: string; message: string };

/** What a thread may use: its heap, and how long one parse may take (starting the thread not counted). */
export interface UploadParserLimits {
  heapMb: number;
  parseTimeMs: number;
}

export const UPLOAD_PARSER_LIMITS = {
  /** Calibration and lens .json, .toml, .qca.txt, .pickle: kilobytes each, read in milliseconds. */
  files: { heapMb: 32, parseTimeMs: 5_000 },
  /** Board photos up to LENS_MAX_IMAGE_PIXELS: decoded, searched for the board, then Zhang's calibration. */
  images: { heapMb: 256, parseTimeMs: 60_000 },
} as const satisfies Record<string, UploadParserLimits>;
export type UploadParserProfile = keyof typeof UPLOAD_PARSER_LIMITS;

/** The file was refused: its parser threw (`parserError` says what), or it went past a limit of its thread. */
export class UploadParseError extends Error {
  override name = 'UploadParseError';
  constructor(
    readonly reason: 'refused' | 'time-limit' | 'memory-limit',
    readonly parserError?: { name: string; message: string },
  ) {
    super(parserError ? `${parserError.name}: ${parserError.message}` : `the file went past the ${reason}`);
  }
}

/** The thread itself failed (it could not start, or stopped by itself): an internal error, not the file's. */
export class UploadParserThreadError extends Error {
  override name = 'UploadParserThreadError';
}

export type ParseUpload = <N extends UploadParserName>(parser: N, input: InputOf<N>) => Promise<OutputOf<N>>;

const WORKER_ENTRY = new URL('./upload-parser-worker.mjs', import.meta.url);
/** Loading tsx and the engine's readers takes about a second; far longer means the thread is stuck. */
const START_TIME_LIMIT_MS = 60_000;

interface ParserThread {
  ended(): boolean;
  parse(request: UploadParserRequest, timeLimitMs: number): Promise<unknown>;
  terminate(): Promise<void>;
}

function startThread(limits: UploadParserLimits): ParserThread {
  const worker = new Worker(WORKER_ENTRY, {
    resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: 8, stackSizeMb: 4 },
  });
  worker.unref();
  let ending: Error | null = null;
  let pending: { resolve(reply: UploadParserReply): void; reject(error: Error): void } | null = null;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    pending = { resolve: () => undefined, reject };
  });
  ready.catch(() => undefined);
  const end = (error: Error) => {
    ending ??= error;
    pending?.reject(ending);
    pending = null;
    void worker.terminate();
  };
  const startTimer = setTimeout(
    () => end(new UploadParserThreadError('an upload parser thread did not start')),
    START_TIME_LIMIT_MS,
  ).unref();
  worker.on('message', (reply: UploadParserReply) => {
    if (reply.status === 'ready') {
      clearTimeout(startTimer);
      pending = null;
      markReady();
    } else {
      const waiting = pending;
      pending = null;
      waiting?.resolve(reply);
    }
  });
  worker.on('error', (error: Error & { code?: string }) =>
    end(
      error.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? new UploadParseError('memory-limit')
        : new UploadParserThreadError(`an upload parser thread failed: ${error.message}`),
    ),
  );
  worker.on('exit', (code) => end(new UploadParserThreadError(`an upload parser thread stopped (exit code ${code})`)));

  return {
    ended: () => ending !== null,
    async parse(request, timeLimitMs) {
      await ready;
      if (ending) throw ending;
      const reply = await new Promise<UploadParserReply>((resolve, reject) => {
        const timer = setTimeout(() => end(new UploadParseError('time-limit')), timeLimitMs);
        pending = {
          resolve: (answer) => {
            clearTimeout(timer);
            resolve(answer);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
        worker.ref();
        worker.postMessage(request);
      }).finally(() => worker.unref());
      if (reply.status === 'refused')
        throw new UploadParseError('refused', { name: reply.errorName, message: reply.message });
      return (reply as { value: unknown }).value;
    },
    async terminate() {
      ending ??= new UploadParserThreadError('the upload parser thread was closed');
      await worker.terminate();
    },
  };
}

/**
 * Runs the engine's readers of uploaded files off the event loop (issue 20: a 52-byte pickle froze
 * the server for 8 s and took 700 MB it never gave back). Each request gets a thread of its own, with
 * a heap limit, and each parse a time limit: a file that goes past either ends the thread and is
 * refused, and whatever a file does inside its thread ends with the request. At most `maxThreads`
 * run at once (more requests wait their turn); one thread per profile is kept started and loaded
 * for the next request, for `spareIdleMs`.
 */
export function createUploadParserThreads(options: { maxThreads?: number; spareIdleMs?: number } = {}) {
  const maxThreads = options.maxThreads ?? 4;
  const spareIdleMs = options.spareIdleMs ?? 60_000;
  const spares = new Map<UploadParserProfile, { thread: ParserThread; timer: NodeJS.Timeout }>();
  const waiting: (() => void)[] = [];
  let running = 0;
  let closed = false;

  const keepSpare = (profile: UploadParserProfile) => {
    if (closed || spares.has(profile)) return;
    const thread = startThread(UPLOAD_PARSER_LIMITS[profile]);
    const timer = setTimeout(() => {
      spares.delete(profile);
      void thread.terminate();
    }, spareIdleMs).unref();
    spares.set(profile, { thread, timer });
  };
  const take = (profile: UploadParserProfile): ParserThread => {
    const spare = spares.get(profile);
    spares.delete(profile);
    if (spare) clearTimeout(spare.timer);
    const thread = spare && !spare.thread.ended() ? spare.thread : startThread(UPLOAD_PARSER_LIMITS[profile]);
    keepSpare(profile);
    return thread;
  };
  const acquire = async () => {
    if (running < maxThreads) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve)); // the slot is handed over by release
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };

  return {
    /** Runs `use` with a thread of the profile's limits, ended (with all it holds) when `use` ends. */
    async withThread<T>(profile: UploadParserProfile, use: (parse: ParseUpload) => Promise<T>): Promise<T> {
      await acquire();
      const thread = take(profile);
      const { parseTimeMs } = UPLOAD_PARSER_LIMITS[profile];
      try {
        return await use(
          (parser, input) => thread.parse({ parser, input } as UploadParserRequest, parseTimeMs) as never,
        );
      } finally {
        await thread.terminate();
        release();
      }
    },

    /** Stops the spare threads (the app is closing). */
    async close(): Promise<void> {
      closed = true;
      const stopping = [...spares.values()];
      spares.clear();
      for (const { timer } of stopping) clearTimeout(timer);
      await Promise.all(stopping.map(({ thread }) => thread.terminate()));
    },
  };
}

export type UploadParserThreads = ReturnType<typeof createUploadParserThreads>;
