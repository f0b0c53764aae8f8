import type { Trial } from '@kinetrace/contracts';
import { Alert, Group, Progress, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { formatElapsed } from '../capture/elapsed-time.ts';
import { overdueAdvice, useProgressView } from './processing-progress.ts';

/**
 * A processing trial's stage, percentage and elapsed time (the wizard's Calibration and Neutral screens), with
 * what to try once it has run far longer than its videos warrant.
 */
export function ProcessingProgress({ trial }: { trial: Trial }) {
  const view = useProgressView(trial);
  return (
    <Stack gap="xs" data-testid="processing-progress">
      <Group justify="space-between">
        <Text data-testid="processing-stage">{view.stage}</Text>
        <Text c="dimmed" data-testid="processing-elapsed">
          {view.retry === null ? '' : `${view.retry} · `}
          {view.percent === null ? '' : `${view.percent}% · `}
          {formatElapsed(view.elapsedS * 1000)}
        </Text>
      </Group>
      <Progress value={view.percent ?? 0} animated={!view.overdue} aria-label="Processing progress" />
      {view.overdue && (
        <Alert color="red" title="Processing seems stuck" data-testid="processing-overdue">
          {overdueAdvice(view.expectedS)}
        </Alert>
      )}
    </Stack>
  );
}

/** The same in one line, for a row of the session's trial list. */
export function ProcessingProgressInline({ trial }: { trial: Trial }) {
  const view = useProgressView(trial);
  return (
    <Text
      size="sm"
      c={view.overdue ? 'red' : 'dimmed'}
      data-testid="trial-progress"
      title={view.overdue ? overdueAdvice(view.expectedS) : undefined}
    >
      {view.stage}
      {view.percent === null ? '' : ` · ${view.percent}%`}
      {view.retry === null ? '' : ` · ${view.retry}`}
    </Text>
  );
}

/** A wizard step's processing failure: the server's message, then what the user can try (and `children`: ways to do it). */
export function ProcessingFailedAlert({
  title,
  message,
  advice,
  testId,
  children,
}: {
  title: string;
  message: string;
  advice: string;
  testId: string;
  children?: ReactNode;
}) {
  return (
    <Alert color="red" title={title} data-testid={testId}>
      <Text size="sm">{message}</Text>
      <Text size="sm" mt="xs">
        {advice}
      </Text>
      {children}
    </Alert>
  );
}
