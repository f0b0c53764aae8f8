import {
  DATA_SHARING_OPTIONS,
  DEFAULT_SESSION_SETTINGS,
  MIN_CALIBRATED_CAMERAS,
  POLLING_INTERVAL_MS,
  TOAST_DURATION_MS,
  messages,
  trialNameField,
  type Subject,
  type Trial,
} from '@kinetrace/contracts';
import { Alert, Button, Checkbox, Container, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import {
  fetchCalibratedCameraCount,
  fetchRecordingStatus,
  fetchSessionSettings,
  fetchTrialImages,
  setSessionMetadata,
  setSessionSubject,
  useRecordingStatus,
} from '../../api/capture.ts';
import { useSession } from '../../api/sessions.ts';
import { useSubject } from '../../api/subjects.ts';
import { sessionPath } from '../../app/route-names.ts';
import { reportError } from '../../app/report-error.ts';
import { speak, useAuditoryFeedback } from '../../capture/auditory-feedback.ts';
import { PoorCalibrationWarning } from '../../components/CalibrationQuality.tsx';
import { ImportVideosDialog } from '../../components/ImportVideosDialog.tsx';
import { ProcessingFailedAlert, ProcessingProgress } from '../../components/ProcessingProgress.tsx';
import { useProgressView } from '../../components/processing-progress.ts';
import { toast } from '../../components/toasts.tsx';
import { currentNeutralOf, trialErrorOf } from '../../components/trial-error.ts';
import { ReprocessButton, TrialIdLine } from '../../components/TrialFailure.tsx';
import { WizardStepper } from '../../components/WizardStepper.tsx';
import { VideosUploaded } from '../Calibration/VideosUploaded.tsx';
import { useWizardTrial } from '../Calibration/wizard-trial.ts';
import { AdvancedSettingsDialog, type AdvancedSettings } from './AdvancedSettingsDialog.tsx';
import { NeutralImages } from './NeutralImages.tsx';
import { NeutralPoseExample } from './NeutralPoseExample.tsx';
import { SubjectPicker } from './SubjectPicker.tsx';

type DataSharing = (typeof DATA_SHARING_OPTIONS)[number];

/** What to try when the neutral trial ends in error, beside the server's own message. */
const NEUTRAL_ERROR_ADVICE =
  'Check that the subject stands still in view of every camera, with nobody else in view, and record again — or go back and calibrate again if the cameras moved.';

/** §5: recording needs at least 2 calibrated cameras. */
function calibratedCountError(count: number): string | null {
  if (count >= MIN_CALIBRATED_CAMERAS) return null;
  return count === 0 ? messages.noCamerasCalibrated : messages.onlyOneCalibratedCamera;
}

/** §2.11 wizard step 4: the subject, the session's settings and the neutral-pose recording (§4.2). */
export function NeutralScreen() {
  const { id: sessionId = '' } = useParams();
  const navigate = useNavigate();
  const session = useSession(sessionId);
  const serverSettings = useQuery({
    queryKey: ['session-settings', sessionId],
    queryFn: () => fetchSessionSettings(sessionId),
  });
  const images = useQuery({
    queryKey: ['neutral-images', sessionId],
    queryFn: () => fetchTrialImages(sessionId, 'neutral'),
  });
  const status = useRecordingStatus(sessionId, POLLING_INTERVAL_MS.neutralStatus);
  const auditoryFeedback = useAuditoryFeedback();

  const [subject, setSubject] = useState<Subject | null>(null);
  const [sessionName, setSessionName] = useState('');
  const [agreed, setAgreed] = useState(false);
  const [dataSharing, setDataSharing] = useState<DataSharing | null>(null);
  const [settings, setSettings] = useState<AdvancedSettings>({ ...DEFAULT_SESSION_SETTINGS });
  const [editingSettings, setEditingSettings] = useState(false);
  const [importing, setImporting] = useState(false);
  const relaxed = useRef(false);
  const storedSubject = useSubject(session.data?.subject ?? null);

  const wizard = useWizardTrial(sessionId, 'neutral', (trial) => {
    if (trial.status === 'processing' && !relaxed.current) {
      relaxed.current = true;
      toast.info(messages.processingSubjectCanRelax, TOAST_DURATION_MS.neutralRelaxNotice);
      if (auditoryFeedback) speak(messages.processingSubjectCanRelax);
    }
    if (trial.status === 'done') void navigate(sessionPath(sessionId));
    if (trial.status === 'error') void showError(trial);
  });
  const processingTrial =
    wizard.trial && (wizard.trial.status === 'processing' || wizard.trial.status === 'reprocess') ? wizard.trial : null;
  const stuck = useProgressView(processingTrial)?.overdue === true;
  // The neutral that failed, just now or before the page was opened: shown until another one is under way.
  const shownNeutral = wizard.trial ?? (session.data && currentNeutralOf(session.data.trials));
  const failedNeutral = !wizard.underWay && shownNeutral?.status === 'error' ? shownNeutral : null;

  // The session's subject is the starting value (a neutral recorded again is of the same person).
  const subjectLoaded = useRef(false);
  useEffect(() => {
    if (!storedSubject.data || subjectLoaded.current) return;
    subjectLoaded.current = true;
    setSubject((current) => current ?? storedSubject.data);
  }, [storedSubject.data]);

  // The session's stored name and settings are the starting values (a re-recorded neutral keeps them).
  const loaded = useRef(false);
  useEffect(() => {
    if (!session.data || loaded.current) return;
    loaded.current = true;
    const stored = session.data.meta.settings ?? {};
    // A session without a name of its own is listed under its id: the field stays empty then.
    const storedName = session.data.meta.sessionName ?? '';
    setSessionName(storedName === session.data.id ? '' : storedName);
    if (stored.data_sharing) setDataSharing(stored.data_sharing);
    setSettings((current) => ({
      ...current,
      ...Object.fromEntries(Object.entries(stored).filter(([key]) => key !== 'data_sharing')),
      filter_frequency: String(stored.filter_frequency ?? current.filter_frequency),
    }));
  }, [session.data]);

  const nameCheck = sessionName === '' ? null : trialNameField.safeParse(sessionName);
  const nameError = nameCheck && !nameCheck.success ? nameCheck.error.issues[0]?.message : undefined;
  const busy = wizard.underWay && !stuck;
  const recording = wizard.trial ? wizard.trial.status === 'recording' : wizard.underWay;
  const ready = subject !== null && agreed && dataSharing !== null && !nameError;
  const neutralImages = images.data?.images ?? [];

  /** §8: the server's message, else the fallback; and the missing videos when some camera did not upload. */
  async function showError(trial: Trial) {
    void images.refetch();
    toast.error(trialErrorOf(trial));
    try {
      const [calibrated, { n_videos_uploaded: uploaded }] = await Promise.all([
        fetchCalibratedCameraCount(sessionId),
        fetchRecordingStatus(sessionId),
      ]);
      if (uploaded < calibrated) toast.error(messages.videosMissing(calibrated, uploaded));
    } catch (error) {
      reportError(error, 'Could not compare the uploaded videos with the calibrated cameras.');
    }
  }

  /** The subject and the settings the neutral trial is processed with, saved on the session; false when it cannot go on. */
  async function saveSubjectAndSettings(): Promise<boolean> {
    if (!subject || !dataSharing) return false;
    if (!agreed) {
      toast.error(messages.subjectMustAgree);
      return false;
    }
    const calibrated = await fetchCalibratedCameraCount(sessionId);
    const problem = calibratedCountError(calibrated);
    if (problem) {
      toast.error(problem);
      return false;
    }
    const { warnings } = await setSessionMetadata(sessionId, {
      settings_data_sharing: dataSharing,
      settings_scaling_setup: settings.scaling_setup,
      settings_pose_model: settings.pose_model,
      settings_framerate: settings.framerate,
      settings_session_name: sessionName,
      settings_openSimModel: settings.openSimModel,
      settings_augmenter_model: settings.augmenter_model,
      settings_filter_frequency: settings.filter_frequency,
      settings_phone_keypoints: settings.phone_keypoints,
      settings_pose_rate: settings.pose_rate,
    });
    for (const warning of warnings) toast.warning(warning);
    await setSessionSubject(sessionId, subject.id);
    return true;
  }

  async function record() {
    if (!subject || !dataSharing) return;
    relaxed.current = false;
    try {
      if (!(await saveSubjectAndSettings())) return;
      await wizard.record({
        name: 'neutral',
        subject_id: subject.id,
        subject_mass: subject.weight,
        subject_height: subject.height,
        subject_sex: subject.sex_at_birth ?? undefined,
        subject_gender: subject.gender ?? undefined,
        subject_data_sharing: dataSharing,
        subject_pose_model: settings.pose_model,
      });
    } catch (error) {
      if (!wizard.leftPage()) reportError(error, 'Could not record the neutral pose.');
    }
  }

  async function importNeutral() {
    // Nobody is standing in front of the cameras for imported videos: no relax notice.
    relaxed.current = true;
    try {
      if (await saveSubjectAndSettings()) setImporting(true);
    } catch (error) {
      reportError(error, 'Could not save the subject and settings.');
    }
  }

  return (
    <Container size="lg" my="md">
      <WizardStepper sessionId={sessionId} step="Neutral" />
      <Title order={2} mb="md">
        Neutral pose
      </Title>
      <Group align="flex-start" gap="lg" wrap="wrap">
        <Paper withBorder radius="md" p="lg" flex={1} miw={340}>
          <Stack>
            {session.data && <PoorCalibrationWarning session={session.data} />}
            <SubjectPicker subject={subject} sessionId={sessionId} onChange={setSubject} disabled={busy} />
            <TextInput
              label="Session name (optional)"
              value={sessionName}
              onChange={(event) => setSessionName(event.currentTarget.value)}
              error={nameError}
              disabled={busy}
            />
            <Checkbox
              label="The subject agrees to the data-sharing terms and to being recorded"
              checked={agreed}
              onChange={(event) => setAgreed(event.currentTarget.checked)}
              error={!agreed && subject !== null ? messages.subjectMustAgree : undefined}
              disabled={busy}
            />
            <Select
              label="Data sharing"
              placeholder="Choose what may be shared"
              data={[...DATA_SHARING_OPTIONS]}
              value={dataSharing}
              onChange={(value) => setDataSharing(value as DataSharing | null)}
              required
              disabled={busy}
            />
            <Group justify="space-between">
              <Button variant="default" onClick={() => setEditingSettings(true)} disabled={busy}>
                Advanced Settings
              </Button>
              <Group>
                {neutralImages.length > 0 && !busy && (
                  <Button variant="default" onClick={() => void record()} disabled={!ready}>
                    Re-record
                  </Button>
                )}
                {neutralImages.length > 0 && !busy ? (
                  <Button onClick={() => void navigate(sessionPath(sessionId))}>Confirm</Button>
                ) : (
                  <Button onClick={() => void record()} disabled={!ready || busy}>
                    {!busy ? 'Record' : recording ? 'Recording' : 'Processing'}
                  </Button>
                )}
              </Group>
            </Group>
            <Group justify="space-between">
              <Button variant="default" onClick={() => void navigate(`/${sessionId}/calibration`)}>
                Back
              </Button>
              <Button variant="subtle" onClick={() => void importNeutral()} disabled={!ready || busy}>
                Import neutral videos
              </Button>
            </Group>
            {processingTrial && <ProcessingProgress trial={processingTrial} />}
            {failedNeutral && (
              <ProcessingFailedAlert
                title="The neutral pose did not succeed"
                message={trialErrorOf(failedNeutral)}
                advice={NEUTRAL_ERROR_ADVICE}
                testId="neutral-error"
              >
                <TrialIdLine trial={failedNeutral} mt="xs" />
                <Group gap="xs" mt="xs">
                  <Button size="compact-sm" variant="light" onClick={() => void record()} disabled={!ready}>
                    Re-record
                  </Button>
                  <ReprocessButton
                    trial={failedNeutral}
                    onQueued={() => {
                      // Nobody stands in front of the cameras for a reprocess: no relax notice.
                      relaxed.current = true;
                      wizard.follow(failedNeutral.id);
                    }}
                  />
                </Group>
                {!ready && (
                  <Text size="xs" mt={4}>
                    To record again, choose the subject, tick their agreement and choose the data sharing above.
                  </Text>
                )}
              </ProcessingFailedAlert>
            )}
          </Stack>
        </Paper>
        <Paper withBorder radius="md" p="lg" w={380}>
          <Stack>
            <Title order={4}>Neutral pose</Title>
            <Alert color="blue">
              The subject stands upright and still in view of every camera, feet shoulder-width apart and pointing
              forward, arms straight at the sides, looking ahead, for the few seconds of the recording.
            </Alert>
            <NeutralPoseExample />
            <VideosUploaded status={status.data} />
            <NeutralImages images={neutralImages} />
          </Stack>
        </Paper>
      </Group>
      {importing && session.data && (
        <ImportVideosDialog
          session={session.data}
          neutral
          onClose={() => setImporting(false)}
          onImported={(trial) => wizard.follow(trial.id)}
        />
      )}
      {editingSettings && (
        <AdvancedSettingsDialog
          settings={settings}
          framerates={serverSettings.data?.framerates ?? []}
          choices={serverSettings.data?.choices}
          phoneKeypointsAllowed={serverSettings.data?.phone_keypoints}
          onClose={() => setEditingSettings(false)}
          onSave={(saved) => {
            // §9: the Any pose notice, 8 s, when the neutral is no longer the upright pose.
            if (saved.scaling_setup === 'any_pose' && settings.scaling_setup !== 'any_pose')
              toast.info(messages.anyPoseNotice, TOAST_DURATION_MS.anyPoseNotice);
            setSettings(saved);
            setEditingSettings(false);
          }}
        />
      )}
    </Container>
  );
}
