import {
  POSE_MODELS,
  RESULT_TAGS,
  SCALING_SETUPS,
  mainSettingsSchema,
  qualityReportSchema,
  trialKindOf,
  type MainSettingsView,
  type QualityReportView,
  type Trial,
} from '@kinetrace/contracts';
import { POSE_MODEL_LABELS } from '@kinetrace/mocap/pose/pose-model';
import { Group, List, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { resultFileQuery, resultUrl } from '../../api/trial-results.ts';
import { LightBadge } from '../../components/LightBadge.tsx';
import { calibrationLight, judgeTrialQuality } from '../../components/quality-lights.ts';

const labelOf = (labels: Record<string, string>, key: string | null) => (key === null ? null : (labels[key] ?? key));

/** How the keypoints were filtered, in words (the filter_frequency setting and what it became, §5). */
function filterWords({ filter }: MainSettingsView): string {
  if (!filter.applied) return 'not filtered (the cutoff reached half the frame rate)';
  const why =
    filter.requested === 'default'
      ? filter.gait
        ? ', the default for gait'
        : ', the default: half the frame rate'
      : '';
  return `filtered at ${filter.cutoffHz} Hz${why}`;
}

/**
 * Where the 2D keypoints came from, in words: the pose model that detected them, the keypoint files imported
 * with the videos, or the phones' own (issue 24), per camera where they were mixed; and why a phone's were not used.
 */
function keypointSourceWords(settings: MainSettingsView): string {
  const requested = labelOf(POSE_MODELS, settings.poseModel.requested);
  const detector = `${labelOf(POSE_MODEL_LABELS, settings.poseModel.used)}${requested ? ` (the session's choice: ${requested})` : ''}`;
  const sources: [string, string[]][] = [
    [detector, 'detected'],
    ['the keypoint files imported with the videos', 'given'],
    ["the phones' own keypoints", 'phone'],
  ].map(([words, source]) => [
    words,
    settings.cameras.filter((camera) => (settings.keypoints2D?.[camera] ?? 'detected') === source),
  ]);
  const used = sources.filter(([, cameras]) => cameras.length > 0);
  const words =
    used.length === 1 ? used[0][0] : used.map(([source, cameras]) => `${source} for ${cameras.join(', ')}`).join('; ');
  const notUsed = Object.entries(settings.phoneKeypoints ?? {})
    .filter(([, phone]) => !phone.used)
    .map(([camera, phone]) => `${camera}: ${phone.reason ?? 'not used'}`);
  return notUsed.length > 0 ? `${words} (the phone's keypoints were not used for ${notUsed.join('; ')})` : words;
}

/**
 * The rate the pose model ran at, where it skipped frames (issue 24: what the trial's filter needs, the frames
 * between filled), per camera where the rates differ; nothing where it ran on every frame.
 */
function detectionRateWords(settings: MainSettingsView): string {
  const reduced = Object.entries(settings.detectedHz ?? {}).filter(([, hz]) => hz < settings.frameRateHz - 0.5);
  if (reduced.length === 0) return '';
  const rates = new Set(reduced.map(([, hz]) => Math.round(hz)));
  const rate =
    rates.size === 1 && reduced.length === Object.keys(settings.detectedHz ?? {}).length
      ? `${[...rates][0]} frames a second`
      : reduced.map(([camera, hz]) => `${Math.round(hz)} frames a second for ${camera}`).join(', ');
  return `, detected on ${rate} (the frames between filled)`;
}

/** `main_settings` in words (issue 21): which pose model made the keypoints, which model they were fitted to, and how. */
function ProcessedWith({ settings }: { settings: MainSettingsView }) {
  return (
    <section aria-label="Processed with">
      <Title order={4} mb={4}>
        Processed with
      </Title>
      <List size="sm" spacing={2}>
        <List.Item>
          Keypoints: {keypointSourceWords(settings)}, from {settings.cameras.length} cameras (
          {settings.cameras.join(', ')}) at {Math.round(settings.frameRateHz)} fps{detectionRateWords(settings)},{' '}
          {filterWords(settings)}.
        </List.Item>
        <List.Item>
          Model: {settings.openSimModel.used}. {settings.openSimModel.reason}
        </List.Item>
        <List.Item>
          Inverse kinematics, marker augmenter: {settings.augmenter.used}. {settings.augmenter.reason}
        </List.Item>
        <List.Item>
          Scaling: {labelOf(SCALING_SETUPS, settings.scalingSetup)}, subject {settings.subject.heightM} m,{' '}
          {settings.subject.massKg} kg.
        </List.Item>
      </List>
    </section>
  );
}

/** Per camera, the figures the quality report keeps of it. */
function CameraTable({ report }: { report: QualityReportView }) {
  return (
    <Table striped withTableBorder fz="sm" aria-label="Quality per camera">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Camera</Table.Th>
          <Table.Th>Keypoints contributed</Table.Th>
          <Table.Th>Left out</Table.Th>
          <Table.Th>Reprojection error (median)</Table.Th>
          <Table.Th>Left/right swaps fixed</Table.Th>
          <Table.Th>Synchronisation</Table.Th>
          <Table.Th>Board error</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {report.cameras.map((camera) => {
          const board = calibrationLight(camera.calibrationErrorPx);
          return (
            <Table.Tr key={camera.name}>
              <Table.Td>{camera.name}</Table.Td>
              <Table.Td>{camera.reprojectionErrorPx?.count ?? 0}</Table.Td>
              <Table.Td>{camera.detectionsLeftOut}</Table.Td>
              <Table.Td>
                {camera.reprojectionErrorPx ? `${camera.reprojectionErrorPx.medianPx.toFixed(1)} px` : '—'}
              </Table.Td>
              <Table.Td>{camera.sidesSwapped}</Table.Td>
              <Table.Td>
                {camera.sync.isReference
                  ? 'reference'
                  : camera.sync.refined
                    ? `${(camera.sync.lagS * 1000).toFixed(0)} ms (${camera.sync.signal})`
                    : "phones' start time"}
              </Table.Td>
              <Table.Td>
                {camera.calibrationErrorPx === null ? (
                  'not measured'
                ) : (
                  <Group gap={6} wrap="nowrap">
                    {`${camera.calibrationErrorPx.toFixed(2)} px`}
                    {board && <LightBadge light={board} size="sm" />}
                  </Group>
                )}
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}

const OVERALL_WORDS = {
  green: 'Every figure is within what a careful capture reaches.',
  amber: 'Usable, with points to check below.',
  red: 'The results are not to be trusted as they are: see below why, and what to try.',
} as const;

/** The quality report (issue 21) as traffic lights with advice, then its per-camera figures. */
function QualitySummary({ report, kind }: { report: QualityReportView; kind: 'neutral' | 'movement' }) {
  const { overall, checks } = judgeTrialQuality(report, kind);
  return (
    <section aria-label="Quality">
      <Group gap="sm" mb={4}>
        <Title order={4}>Quality</Title>
        <LightBadge light={overall} size="lg" />
        <Text size="sm" data-testid="quality-overall">
          {OVERALL_WORDS[overall]}
        </Text>
      </Group>
      <Stack gap={6} mb="sm">
        {checks.map((check) => (
          <Group key={check.title} data-check={check.title} gap="xs" wrap="nowrap" align="flex-start">
            <LightBadge light={check.light} size="sm" />
            <div>
              <Text size="sm">
                <strong>{check.title}:</strong> {check.summary}
              </Text>
              {check.advice && (
                <Text size="sm" c="dimmed" data-testid="quality-advice">
                  {check.advice}
                </Text>
              )}
            </div>
          </Group>
        ))}
      </Stack>
      <CameraTable report={report} />
    </section>
  );
}

/** What an opened trial was processed with and how good the result is, from its main_settings and quality_report. */
export function TrialReport({ trial }: { trial: Trial }) {
  const settingsUrl = resultUrl(trial, RESULT_TAGS.mainSettings);
  const reportUrl = resultUrl(trial, RESULT_TAGS.qualityReport);
  const settings = useQuery(
    resultFileQuery(settingsUrl, async (response) => mainSettingsSchema.parse(await response.json())),
  );
  const report = useQuery(
    resultFileQuery(reportUrl, async (response) => qualityReportSchema.parse(await response.json())),
  );
  if (!settingsUrl && !reportUrl) return null;
  const kind = trialKindOf(trial.name) === 'neutral' ? 'neutral' : 'movement';
  return (
    <Paper withBorder radius="md" p="sm" data-testid="trial-report">
      <Stack gap="md">
        {report.data && <QualitySummary report={report.data} kind={kind} />}
        {settings.data && <ProcessedWith settings={settings.data} />}
        {(report.isError || settings.isError) && (
          <Text size="sm" c="dimmed">
            {report.isError ? 'The quality report' : 'The processing settings'} of this trial could not be read:
            download it from the files below.
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
