import {
  dataPaths,
  importCalibrationResponseSchema,
  lensCalibrationSchema,
  lensCalibrationsResponseSchema,
  processingPaths,
  reprocessResponseSchema,
  sessionSchema,
  trialSchema,
  type LensCalibrationFields,
  type Session,
  type Trial,
} from '@kinetrace/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../app/api-client.ts';
import { useRefreshSessions } from './sessions.ts';

/** The processing calls (issue 9): reprocess, import a calibration, next subject, lens calibrations, a trial followed while it processes. */

const FINISHED: readonly Trial['status'][] = ['done', 'error', 'stopped'];
export const isTrialFinished = (trial: Trial) => FINISHED.includes(trial.status);

/** One trial, asked again every `intervalMs` until it is done, in error or stopped. */
export const useFollowedTrial = (trialId: string | null, intervalMs: number) =>
  useQuery({
    queryKey: ['trial', trialId],
    queryFn: () => apiRequest(dataPaths.trial(trialId!), { schema: trialSchema }),
    enabled: trialId !== null,
    refetchInterval: (query) => (query.state.data && isTrialFinished(query.state.data) ? false : intervalMs),
  });

/**
 * Queues one trial, or every processed trial of a session, again with the session's current settings. The
 * queued trials show as `reprocess` at once (what the server just set); the list's next refresh follows them on.
 */
export const useReprocess = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (target: { trialId: string } | { sessionId: string }) =>
      apiRequest(
        'trialId' in target
          ? processingPaths.reprocessTrial(target.trialId)
          : processingPaths.reprocessSession(target.sessionId),
        {
          method: 'POST',
          schema: reprocessResponseSchema,
        },
      ),
    onSuccess: ({ trials: queued }) => {
      // A trial followed until it finished is followed again (the wizard's neutral, once reprocessed).
      for (const id of queued) void queryClient.invalidateQueries({ queryKey: ['trial', id] });
      queryClient.setQueriesData<Session>(
        { queryKey: ['session'] },
        (session) =>
          session && {
            ...session,
            trials: session.trials.map((trial) =>
              queued.includes(trial.id) ? { ...trial, status: 'reprocess' } : trial,
            ),
          },
      );
    },
  });
};

/** Camera calibration files (one per camera or one for all) that make the session calibrated. */
export const useImportCalibration = () => {
  const refresh = useRefreshSessions();
  return useMutation({
    mutationFn: ({ sessionId, files }: { sessionId: string; files: readonly File[] }) => {
      const form = new FormData();
      for (const file of files) form.append('file', file, file.name);
      return apiRequest(processingPaths.importCalibration(sessionId), {
        method: 'POST',
        body: form,
        schema: importCalibrationResponseSchema,
      });
    },
    onSuccess: () => refresh(),
  });
};

/** A new session with this one's calibration and phones, for the next subject (spec §7). */
export const useNewSubjectSession = () =>
  useMutation({
    mutationFn: async (sessionId: string) =>
      (await apiRequest(processingPaths.newSubject(sessionId), { schema: z.array(sessionSchema).min(1) }))[0],
  });

const lensCalibrationsQueryKey = ['lens-calibrations'] as const;

export const useLensCalibrations = () =>
  useQuery({
    queryKey: lensCalibrationsQueryKey,
    queryFn: () => apiRequest(processingPaths.lensCalibrations, { schema: lensCalibrationsResponseSchema }),
  });

/** A lens calibration for a device model: a `kinetrace calibrate` JSON or images of the board waved before the lens. */
export const useUploadLensCalibration = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ fields, files }: { fields: LensCalibrationFields; files: readonly File[] }) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.set(name, String(value));
      for (const file of files) form.append('file', file, file.name);
      return apiRequest(processingPaths.lensCalibrations, {
        method: 'POST',
        body: form,
        schema: lensCalibrationSchema,
      });
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: lensCalibrationsQueryKey }),
  });
};
