import { POLLING_INTERVAL_MS, TRASH_RETENTION_DAYS, dataPaths, type Trial } from '@kinetrace/contracts';
import { Button, Center, Checkbox, Container, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useNewSubjectSession, useReprocess } from '../../api/processing.ts';
import { useRefreshSessions, useSession } from '../../api/sessions.ts';
import { useTrashTrial } from '../../api/trials.ts';
import { activeSessionStore } from '../../app/active-session.ts';
import { formatDateTime } from '../../app/date-format.ts';
import { reportError } from '../../app/report-error.ts';
import { ArchiveDownloadDialog } from '../../components/ArchiveDownloadDialog.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { AnalysisDialog } from './AnalysisDialog.tsx';
import { ImportCalibrationDialog } from '../../components/ImportCalibrationDialog.tsx';
import { ImportVideosDialog } from '../../components/ImportVideosDialog.tsx';
import { sessionDisplayName } from '../../components/session-name.ts';
import { progressOf } from '../../components/processing-progress.ts';
import { toast } from '../../components/toasts.tsx';
import { currentNeutralOf } from '../../components/trial-error.ts';
import { LensCalibrationDialog } from './LensCalibrationDialog.tsx';
import { RenameTrialDialog } from './RenameTrialDialog.tsx';
import { SessionMenu, type SessionDialog } from './SessionMenu.tsx';
import { SessionSharing } from './SessionSharing.tsx';
import { TrialList, type TrialAction } from './TrialList.tsx';
import { TrialReport } from './TrialReport.tsx';
import { TrialResults } from './TrialResults.tsx';
import { LazyTrialViewer } from './viewer/LazyTrialViewer.tsx';
import { TrialTagsDialog } from './TrialTagsDialog.tsx';
import { SessionRecorder } from './recorder/SessionRecorder.tsx';
import { canOpenTrial } from './recorder/trial-click.ts';

type Dialog = { kind: TrialAction; trial: Trial } | { kind: 'download' } | { kind: SessionDialog };

/**
 * §2.13 list rules: calibration never shows, trashed trials only on request. A neutral in error stays (issue 21,
 * unlike §2.13): hidden, it left the user no way to see why the trials behind it wait, nor to reprocess it.
 */
const shownTrials = (trials: readonly Trial[], showTrashed: boolean) =>
  trials.filter((trial) => trial.name !== 'calibration' && (showTrashed || !trial.trashed));

/**
 * What "Reprocess the session" queued, by kind (the calibration and neutral are queued too), and the trials
 * that were left waiting for the neutral: they run after it by themselves.
 */
function reprocessedSummary(queuedIds: readonly string[], trials: readonly Trial[]): string {
  const queued = trials.filter((trial) => queuedIds.includes(trial.id));
  const movement = queued.filter((trial) => trial.name !== 'calibration' && trial.name !== 'neutral').length;
  const parts = [
    ...(queued.some((trial) => trial.name === 'calibration') ? ['the calibration'] : []),
    ...(queued.some((trial) => trial.name === 'neutral') ? ['the neutral pose'] : []),
    ...(movement > 0 ? [`${movement} trial${movement === 1 ? '' : 's'}`] : []),
  ];
  const waiting = trials.filter(
    (trial) =>
      !trial.trashed &&
      !queuedIds.includes(trial.id) &&
      (trial.status === 'processing' || trial.status === 'reprocess') &&
      progressOf(trial)?.stage === 'waiting_for_neutral',
  ).length;
  const queuedText =
    parts.length === 0
      ? 'Nothing was queued: no trial of this session has finished processing.'
      : `In the queue to be reprocessed: ${parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`}.`;
  return waiting === 0
    ? queuedText
    : `${queuedText} ${waiting} trial${waiting === 1 ? ' waits' : 's wait'} for the neutral pose and will run after it.`;
}

/**
 * §2.13 session screen: the session's name, subject and trials, refreshed every 5 s with each trial's
 * processing progress (§9). Owners (§6) also get the recorder, the trial menu, the session menu, the next
 * subject and the archive download. A processed trial opens below the list, with its results.
 */
export function SessionScreen() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const session = useSession(id, POLLING_INTERVAL_MS.trialsList);
  const refreshSessions = useRefreshSessions();
  const trashTrial = useTrashTrial();
  const reprocess = useReprocess();
  const newSubject = useNewSubjectSession();
  const [showTrashed, setShowTrashed] = useState(false);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [openedTrialId, setOpenedTrialId] = useState<string | null>(null);

  useEffect(() => {
    if (session.error) reportError(session.error, 'Could not load the session.');
  }, [session.error]);
  if (!session.data) {
    return (
      <Center my="xl">
        {session.isError ? (
          <Text c="dimmed">This session cannot be shown.</Text>
        ) : (
          <Loader aria-label="Loading the session" />
        )}
      </Center>
    );
  }
  const { data } = session;
  const trials = shownTrials(data.trials, showTrashed);
  const openedTrial = data.trials.find((trial) => trial.id === openedTrialId && trial.status === 'done');
  const closeDialog = () => setDialog(null);
  const setTrashed = (trial: Trial, action: 'trash' | 'restore') =>
    trashTrial.mutate(
      { id: trial.id, action },
      { onSuccess: closeDialog, onError: (error) => reportError(error, 'Could not change the trial.') },
    );
  const reprocessSession = () =>
    reprocess.mutate(
      { sessionId: data.id },
      {
        onSuccess: ({ trials: queued }) => {
          toast.info(reprocessedSummary(queued, data.trials));
          closeDialog();
        },
        onError: (error) => reportError(error, 'Could not reprocess the session.'),
      },
    );
  const startNextSubject = () =>
    newSubject.mutate(data.id, {
      onSuccess: (next) => {
        activeSessionStore.set(next.id);
        void navigate(`/${next.id}/neutral`);
      },
      onError: (error) => reportError(error, 'Could not start a session for the next subject.'),
    });

  return (
    <Container size="lg" my="md">
      {/* The owner's controls sit below the title, on the left: warnings stay top right until dismissed (§8) and must never cover them. */}
      <Stack gap="sm" mb="md">
        <div>
          <Title order={2}>
            {sessionDisplayName({ id: data.id, sessionName: data.meta.sessionName, created_at: data.created_at })}
          </Title>
          <Text c="dimmed">
            Subject: {data.name ?? (data.is_owner ? 'none' : 'not shared')} · {formatDateTime(data.created_at)}
          </Text>
        </div>
        {data.is_owner && (
          <Group data-testid="session-controls">
            <Checkbox
              label="Show trashed trials"
              checked={showTrashed}
              onChange={(event) => setShowTrashed(event.currentTarget.checked)}
            />
            <Button variant="light" onClick={startNextSubject} loading={newSubject.isPending}>
              Next subject
            </Button>
            <Button variant="default" onClick={() => setDialog({ kind: 'download' })}>
              Download data
            </Button>
            <SessionMenu session={data} onOpen={(kind) => setDialog({ kind })} />
          </Group>
        )}
        {data.is_owner && <SessionSharing session={data} />}
      </Stack>
      {data.is_owner && <SessionRecorder session={data} />}
      <TrialList
        sessionId={data.id}
        trials={trials}
        neutral={currentNeutralOf(data.trials)}
        isOwner={data.is_owner}
        openedTrialId={openedTrial?.id ?? null}
        onClickTrial={(trial) => void canOpenTrial(trial).then((opens) => opens && setOpenedTrialId(trial.id))}
        onOpen={(kind, trial) => setDialog({ kind, trial })}
        onRestore={(trial) => setTrashed(trial, 'restore')}
      />
      {openedTrial && (
        <Paper withBorder radius="md" p="md" mt="md" data-testid="trial-view">
          <Stack>
            <Title order={3}>{openedTrial.name}</Title>
            <LazyTrialViewer session={data} trial={openedTrial} />
            <TrialReport trial={openedTrial} />
            <TrialResults trial={openedTrial} />
          </Stack>
        </Paper>
      )}
      {dialog?.kind === 'rename' && (
        <RenameTrialDialog trial={dialog.trial} sessionTrials={data.trials} onClose={closeDialog} />
      )}
      {dialog?.kind === 'tags' && <TrialTagsDialog trial={dialog.trial} onClose={closeDialog} />}
      {dialog?.kind === 'analysis' && <AnalysisDialog trial={dialog.trial} sessionId={data.id} onClose={closeDialog} />}
      {dialog?.kind === 'trash' && (
        <ConfirmDialog
          title="Trash trial"
          message={`Do you want to trash trial ${dialog.trial.name}? You will be able to restore it for ${TRASH_RETENTION_DAYS} days. After that, this trial will be permanently removed.`}
          busy={trashTrial.isPending}
          onClose={closeDialog}
          onConfirm={() => setTrashed(dialog.trial, 'trash')}
        />
      )}
      {dialog?.kind === 'download' && (
        <ArchiveDownloadDialog
          question="Do you want to download all data of this session? (This can take several minutes.)"
          asyncDownloadPath={dataPaths.sessionAction(data.id, 'async-download')}
          fileName="data.zip"
          onClose={closeDialog}
        />
      )}
      {dialog?.kind === 'import-calibration' && (
        <ImportCalibrationDialog
          sessionId={data.id}
          onClose={closeDialog}
          onCalibrated={() => {
            closeDialog();
            refreshSessions();
          }}
        />
      )}
      {dialog?.kind === 'import-videos' && <ImportVideosDialog session={data} onClose={closeDialog} />}
      {dialog?.kind === 'reprocess' && (
        <ConfirmDialog
          title="Reprocess the session"
          message="Process the calibration, the neutral pose and every trial of this session again with its current settings? Their results are replaced as each one finishes."
          busy={reprocess.isPending}
          onClose={closeDialog}
          onConfirm={reprocessSession}
        />
      )}
      {dialog?.kind === 'lens-calibrations' && <LensCalibrationDialog onClose={closeDialog} />}
    </Container>
  );
}
