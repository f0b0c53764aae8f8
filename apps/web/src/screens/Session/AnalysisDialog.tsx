import type { AnalysisFunction, AnalysisTrialState, Trial } from '@kinetrace/contracts';
import { Alert, Button, Group, Loader, Modal, Paper, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { useAnalysisFunctions, useAnalysisTask, useInvokeAnalysis } from '../../api/analyses.ts';
import { analysisDashboardPath } from '../AnalysisDashboard/dashboard-path.ts';

const NO_FUNCTIONS_TEXT = 'Sorry, there are no available functions.';

/** One function on the trial: run it, watch it calculate (its task polled every second), read its state, run it again. */
function FunctionRow({ analysis, trial, sessionId }: { analysis: AnalysisFunction; trial: Trial; sessionId: string }) {
  const known = analysis.states[trial.id];
  const invoke = useInvokeAnalysis();
  const [taskId, setTaskId] = useState<string | null>(known?.state.status === 'pending' ? known.task_id : null);
  const task = useAnalysisTask(taskId);
  const answered = task.data && 'state' in task.data ? task.data : undefined;
  const state: AnalysisTrialState | undefined = taskId === null ? known : answered;
  const calculating = invoke.isPending || (taskId !== null && !answered && !task.isError);
  const run = () =>
    invoke.mutate(
      { functionId: analysis.id, request: { session_id: sessionId, specific_trial_names: [trial.name] } },
      {
        onSuccess: (started) =>
          setTaskId(started.tasks.find((one) => one.trial_id === trial.id)?.task_id ?? started.task_id),
      },
    );
  const failed = state?.state.status === 'failed';
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-label={analysis.title}>
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <div>
          <Tooltip label={analysis.info} multiline w={320} disabled={!analysis.info}>
            <Title order={5}>{analysis.title}</Title>
          </Tooltip>
          <Text size="sm" c="dimmed">
            {analysis.description}
          </Text>
        </div>
        <Stack gap={4} align="flex-end" miw={240}>
          {calculating ? (
            <Group gap={6} data-testid="analysis-status">
              <Loader size="xs" />
              <Text size="sm">Calculating...</Text>
            </Group>
          ) : (
            state && (
              <Text size="sm" fw={600} c={failed ? 'red' : 'teal'} data-testid="analysis-status">
                {state.state.status}
              </Text>
            )
          )}
          {!calculating && (
            <Group gap="xs" wrap="nowrap">
              {state?.state.status === 'successfull' && (
                <Button
                  size="xs"
                  variant="light"
                  component={Link}
                  to={analysisDashboardPath(state.dashboard_id, { trialId: trial.id })}
                >
                  Open dashboard
                </Button>
              )}
              <Button size="xs" variant={state ? 'default' : 'filled'} onClick={run}>
                {state ? 'Re-run' : 'Run'}
              </Button>
            </Group>
          )}
        </Stack>
      </Group>
      {!calculating && failed && state.state.error && (
        <Text size="sm" c="red" mt="xs">
          {state.state.error}
        </Text>
      )}
      {(invoke.error ?? task.error) && (
        <Text size="sm" c="red" mt="xs">
          {(invoke.error ?? task.error)!.message}
        </Text>
      )}
    </Paper>
  );
}

/** Spec §2.13 the analysis dialog of a trial (owner only): the analysis functions and this trial's state with each. */
export function AnalysisDialog({
  trial,
  sessionId,
  onClose,
}: {
  trial: Trial;
  sessionId: string;
  onClose: () => void;
}) {
  const functions = useAnalysisFunctions(sessionId);
  return (
    <Modal opened onClose={onClose} title={`Analysis of ${trial.name}`} size="lg">
      {functions.isPending && <Loader aria-label="Loading the analysis functions" />}
      {functions.error && <Alert color="red">{functions.error.message}</Alert>}
      {functions.data?.length === 0 && <Text>{NO_FUNCTIONS_TEXT}</Text>}
      <Stack gap="sm">
        {functions.data?.map((analysis) => (
          <FunctionRow key={analysis.id} analysis={analysis} trial={trial} sessionId={sessionId} />
        ))}
      </Stack>
    </Modal>
  );
}
