import { messages, type Trial } from '@kinetrace/contracts';
import { Button, Text, type MantineSpacing } from '@mantine/core';
import { useReprocess } from '../api/processing.ts';
import { reportError } from '../app/report-error.ts';
import { toast } from './toasts.tsx';

/** Queues a finished trial again with the session's current settings, and says so (or why not). */
export function useReprocessTrial() {
  const reprocess = useReprocess();
  return {
    pending: reprocess.isPending,
    start: (trial: Trial, onQueued?: () => void) =>
      reprocess.mutate(
        { trialId: trial.id },
        {
          onSuccess: () => {
            toast.info(messages.trialQueuedForReprocessing);
            onQueued?.();
          },
          onError: (error) => reportError(error, 'Could not reprocess the trial.'),
        },
      ),
  };
}

/** The id of a trial that failed, to quote when reporting it. */
export function TrialIdLine({ trial, mt }: { trial: Trial; mt?: MantineSpacing }) {
  return (
    <Text size="xs" c="dimmed" mt={mt} data-testid="trial-id">
      Trial id: {trial.id}
    </Text>
  );
}

/** Reprocess for a trial in error (a failed trial is never a dead end). */
export function ReprocessButton({ trial, onQueued }: { trial: Trial; onQueued?: () => void }) {
  const reprocess = useReprocessTrial();
  return (
    <Button
      size="compact-sm"
      variant="light"
      loading={reprocess.pending}
      onClick={() => reprocess.start(trial, onQueued)}
    >
      Reprocess
    </Button>
  );
}
