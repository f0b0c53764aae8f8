import { messages, type Trial } from '@kinetrace/contracts';
import { fetchTrial } from '../../../api/capture.ts';
import { toast } from '../../../components/toasts.tsx';
import { trialErrorOf } from '../../../components/trial-error.ts';

/**
 * §4.3 clicking a trial of the list: a trial still recording, queued or in error says so (an error with the
 * server's message when it has one); only a processed trial opens. Resolves to whether it may open.
 */
export async function canOpenTrial(trial: Trial): Promise<boolean> {
  switch (trial.status) {
    case 'recording':
      toast.info(messages.trialBeingRecorded);
      return false;
    case 'uploading':
    case 'processing':
      toast.info(messages.trialQueued);
      return false;
    case 'reprocess':
      toast.info(messages.trialQueuedForReprocessing);
      return false;
    case 'error': {
      toast.error(trialErrorOf(await fetchTrial(trial.id).catch(() => trial)));
      return false;
    }
    default:
      return true;
  }
}
