import { POLLING_INTERVAL_MS, type RecordQuery, type Trial, type TrialStatus } from '@kinetrace/contracts';
import { useEffect, useRef, useState } from 'react';
import { startRecording, stopRecording } from '../../api/capture.ts';
import { isTrialFinished, useFollowedTrial } from '../../api/processing.ts';
import { useSession } from '../../api/sessions.ts';

/**
 * How long the wizard lets the phones record a calibration or neutral trial before it stops them. Both are
 * still scenes (a board on a tripod, a person standing still): a couple of seconds of video is plenty, and
 * the phones start about a second after the order (their common start on the server's clock).
 */
export const WIZARD_CAPTURE_MS = { calibration: 3_000, neutral: 4_000 } as const;

type WizardTrialName = 'calibration' | 'neutral';

const POLLING_MS: Record<WizardTrialName, number> = {
  calibration: POLLING_INTERVAL_MS.calibrationStatus,
  neutral: POLLING_INTERVAL_MS.neutralStatus,
};

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new DOMException('Aborted', 'AbortError'));
    });
  });

/** The session's live calibration or neutral trial, when one is still being recorded, uploaded or processed. */
const trialUnderWay = (trials: readonly Trial[], name: WizardTrialName) => {
  const latest = trials.filter((trial) => trial.name === name && !trial.trashed).at(-1);
  return latest && !isTrialFinished(latest) ? latest : undefined;
};

/**
 * §4.2 the wizard's calibration or neutral trial: records one (stopped after WIZARD_CAPTURE_MS), or takes
 * one that was imported, then follows it every second until it is done or in error; a trial already under
 * way when the page opens (a reload) is followed too. `onStatus` hears each change of the followed trial's
 * status, with the trial as it then is. Leaving the page stops it all.
 */
export function useWizardTrial(sessionId: string, name: WizardTrialName, onStatus: (trial: Trial) => void) {
  const session = useSession(sessionId);
  const [trialId, setTrialId] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const followed = useFollowedTrial(trialId, POLLING_MS[name]);
  const trial = followed.data?.id === trialId ? followed.data : undefined;
  const abort = useRef(new AbortController());
  useEffect(() => () => abort.current.abort(), []);

  const pickedUp = useRef<{ id: string | null } | null>(null);
  useEffect(() => {
    if (pickedUp.current || !session.data) return;
    const underWay = trialUnderWay(session.data.trials, name);
    pickedUp.current = { id: underWay?.id ?? null };
    if (underWay) setTrialId((current) => current ?? underWay.id);
  }, [session.data, name]);

  const heard = useRef<{ id: string; status: TrialStatus } | null>(null);
  const listener = useRef(onStatus);
  listener.current = onStatus;
  useEffect(() => {
    if (!trial || (heard.current?.id === trial.id && heard.current.status === trial.status)) return;
    const firstHearing = heard.current?.id !== trial.id;
    heard.current = { id: trial.id, status: trial.status };
    // A trial picked up from a stale session list may have finished meanwhile: only changes seen here count.
    if (firstHearing && trial.id === pickedUp.current?.id && isTrialFinished(trial)) return;
    listener.current(trial);
  }, [trial]);

  return {
    /** The followed trial, once loaded. */
    trial,
    /** Recording is being ordered, or the followed trial is not finished yet. */
    underWay: starting || (trialId !== null && (trial === undefined || !isTrialFinished(trial))),
    /** Records a new trial (the phones stop after WIZARD_CAPTURE_MS) and follows it. */
    async record(request: RecordQuery & { name: WizardTrialName }): Promise<void> {
      setStarting(true);
      try {
        const { id } = await startRecording(sessionId, request);
        setTrialId(id);
        await sleep(WIZARD_CAPTURE_MS[name], abort.current.signal);
        await stopRecording(sessionId);
      } finally {
        setStarting(false);
      }
    },
    /** Follows a trial made another way (imported videos). */
    follow: (id: string) => setTrialId(id),
    /** Whether an error was the page being left rather than a failure to report. */
    leftPage: () => abort.current.signal.aborted,
  };
}
