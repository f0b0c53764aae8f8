import {
  POLLING_INTERVAL_MS,
  asyncDownloadResponseSchema,
  dataPaths,
  downloadPendingResponseSchema,
  downloadReadyResponseSchema,
} from '@kinetrace/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { z } from 'zod';
import { apiRequest } from '../app/api-client.ts';

const taskStateSchema = z.union([downloadReadyResponseSchema, downloadPendingResponseSchema]);

export type ArchiveDownloadState =
  | { phase: 'idle' }
  | { phase: 'running'; progress: number | null }
  | { phase: 'done'; url: string }
  | { phase: 'failed'; error: unknown };

/**
 * §4.4 archive download: start the task (`async-download`), poll its state every second (202: keep polling,
 * 200: a signed url that works without the token). `reset` (the dialog closing) forgets the progress and
 * stops polling.
 */
export function useArchiveDownload() {
  const [state, setState] = useState<ArchiveDownloadState>({ phase: 'idle' });
  const run = useRef(0);

  const start = useCallback(async (asyncDownloadPath: string) => {
    const thisRun = ++run.current;
    setState({ phase: 'running', progress: null });
    try {
      const { task_id } = await apiRequest(asyncDownloadPath, { schema: asyncDownloadResponseSchema });
      while (run.current === thisRun) {
        const answer = await apiRequest(dataPaths.taskReady(task_id), { schema: taskStateSchema });
        if (run.current !== thisRun) return;
        if ('url' in answer) {
          setState({ phase: 'done', url: answer.url });
          return;
        }
        setState({ phase: 'running', progress: answer.progress ?? null });
        await new Promise((resolve) => setTimeout(resolve, POLLING_INTERVAL_MS.asyncTask));
      }
    } catch (error) {
      if (run.current === thisRun) setState({ phase: 'failed', error });
    }
  }, []);

  const reset = useCallback(() => {
    run.current += 1;
    setState({ phase: 'idle' });
  }, []);

  useEffect(() => () => void (run.current += 1), []);
  return { state, start, reset };
}
