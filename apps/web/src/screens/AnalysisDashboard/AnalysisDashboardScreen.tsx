import {
  DASHBOARD_AUTOPLAY_DELAY_MS,
  type AnalysisDashboardWithData,
  type AnalysisResult,
  type AnalysisWidget,
  type Session,
} from '@kinetrace/contracts';
import { Alert, Button, Center, Container, Grid, Loader, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { useAnalysisDashboardData, useAnalysisResult } from '../../api/analyses.ts';
import { useSession } from '../../api/sessions.ts';
import { useAuth } from '../../app/auth-store.ts';
import { LazyTrialViewer } from '../Session/viewer/LazyTrialViewer.tsx';
import type { PlaybackClock } from '../Session/viewer/playback-clock.ts';
import { CycleCurves, LineChartWidget } from './ChartWidgets.tsx';
import { MetricBars, MetricCards, chosenMetrics } from './MetricWidgets.tsx';
import { ShareDialog } from './ShareDialog.tsx';
import { sessionDisplayName } from '../../components/session-name.ts';

type Data = AnalysisDashboardWithData['data'];

const SIGN_IN_TEXT = 'Sign in to see your analyses, or open the link to an analysis someone shared with you.';
const NOT_SHARED_TEXT = 'This analysis is not shared with you: ask its owner for a link to it.';

/** The trial the link names, else the first one listed; its session and subject follow from it. */
function selection(data: Data, trialId: string | null) {
  const trial = data.trials.find((one) => one.id === trialId) ?? data.trials[0];
  const session = data.sessions.find((one) => one.id === trial?.session);
  return { trial, session, subjectId: session?.subject ?? null };
}

type Column = AnalysisDashboardWithData['layout']['columns'][number];
const hasViewer = (column: Column) => column.widgets.some((widget) => widget.type === 'viewer');

/**
 * Grid spans of the layout's columns: side by side on wide screens, the viewer's column twice as
 * wide as the others (its playback controls need the room); on narrower ones the viewer's column
 * takes the whole width above the others.
 */
function columnSpans(columns: Column[]) {
  const weights = columns.map((column) => (hasViewer(column) ? 2 : 1));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const others = columns.filter((column) => !hasViewer(column)).length;
  return columns.map((column, c) => ({
    base: 12,
    lg: hasViewer(column) || others === 0 ? 12 : Math.floor(12 / others),
    xl: Math.floor((12 * weights[c]) / total),
  }));
}

const widgetTitle: Record<AnalysisWidget['type'], string> = {
  viewer: '3D view',
  'metric-cards': 'Metrics',
  'metric-bars': 'Normal ranges',
  'line-chart': 'Chart',
  'cycle-curves': 'Cycle curves',
  'info-text': 'About this analysis',
};

function Widget({
  widget,
  result,
  trialId,
  session,
  clock,
  onClock,
}: {
  widget: AnalysisWidget;
  result: AnalysisResult;
  trialId: string;
  session: Session | undefined;
  clock: PlaybackClock | undefined;
  onClock: (clock: PlaybackClock | undefined) => void;
}) {
  const title = 'title' in widget ? widget.title : widgetTitle[widget.type];
  const trial = session?.trials.find((one) => one.id === trialId);
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-label={title}>
      <Title order={5} mb="xs">
        {title}
      </Title>
      {widget.type === 'viewer' &&
        (session && trial ? (
          <LazyTrialViewer
            session={session}
            trial={trial}
            frames={result.indices}
            autoplayMs={DASHBOARD_AUTOPLAY_DELAY_MS}
            onClock={onClock}
          />
        ) : (
          <Loader aria-label="Loading the 3D viewer" />
        ))}
      {widget.type === 'metric-cards' && <MetricCards metrics={chosenMetrics(result, widget.metrics)} />}
      {widget.type === 'metric-bars' && <MetricBars metrics={chosenMetrics(result, widget.metrics)} />}
      {widget.type === 'line-chart' && <LineChartWidget result={result} y={widget.y} clock={clock} />}
      {widget.type === 'cycle-curves' &&
        (result.curves.length > 0 ? (
          <CycleCurves result={result} />
        ) : (
          <Text c="dimmed">This analysis has no cycle curves.</Text>
        ))}
      {widget.type === 'info-text' && <Text size="sm">{result.info_text}</Text>}
    </Paper>
  );
}

/**
 * Spec §2.15 analysis dashboard (`/analysis-dashboard/{id}/?trialId&subjectId&shareToken`): the Data
 * menu (subject → session → trial) and the owner's share dialog on the left, the dashboard's columns of
 * widgets for the chosen trial's result on the right. Read-only for visitors of a shared link.
 */
export function AnalysisDashboardScreen() {
  const { id = '' } = useParams();
  const dashboardId = Number(id);
  const [params, setParams] = useSearchParams();
  const { token } = useAuth();
  const shareToken = params.get('shareToken') || undefined; // an empty token in the link is none
  const linkSubject = params.get('subjectId');
  const trialId = params.get('trialId');
  // The signed-in owner's analysed trials, or a subject's with its share token...
  const wide = useAnalysisDashboardData(
    dashboardId,
    { subject_id: linkSubject ? Number(linkSubject) : undefined, share_token: shareToken },
    Boolean(token || linkSubject),
  );
  // ...or, for a public session's link (it names only the trial), that trial, when it is not among them.
  const trialOnly = Boolean(
    trialId && !linkSubject && (!token || (wide.data && !wide.data.data.trials.some((trial) => trial.id === trialId))),
  );
  const narrow = useAnalysisDashboardData(dashboardId, { trial_id: trialId ?? undefined }, trialOnly);
  const dashboard = trialOnly ? narrow : wide;
  const picked = dashboard.data ? selection(dashboard.data.data, trialId) : undefined;
  const session = useSession(picked?.session?.id ?? null, false, shareToken);
  const resultUrl = dashboard.data?.data.results.find((result) => result.trial_id === picked?.trial?.id)?.media;
  const result = useAnalysisResult(resultUrl);
  const [clock, setClock] = useState<PlaybackClock | undefined>();
  const [sharing, setSharing] = useState(false);

  if (!token && !linkSubject && !trialId) {
    return (
      <Container my="xl">
        <Alert color="blue">{SIGN_IN_TEXT}</Alert>
      </Container>
    );
  }
  if (!Number.isInteger(dashboardId) || dashboard.isError) {
    return (
      <Center my="xl">
        <Text c="dimmed">{dashboard.error?.message ?? 'This dashboard cannot be shown.'}</Text>
      </Center>
    );
  }
  if (!dashboard.data || !picked) return <Loader m="xl" aria-label="Loading the dashboard" />;
  if (trialId && picked.trial?.id !== trialId) {
    return (
      <Container my="xl">
        <Alert color="orange">{NOT_SHARED_TEXT}</Alert>
      </Container>
    );
  }
  const { data } = dashboard.data;
  const viewed = picked.trial;
  const failure = result.error ?? session.error;
  const choose = (next: string | undefined) => {
    const query = new URLSearchParams(params);
    if (next) query.set('trialId', next);
    setParams(query, { replace: true });
  };
  const firstTrialOf = (sessionId: string | null) => data.trials.find((trial) => trial.session === sessionId)?.id;
  const sessionsOfSubject = data.sessions.filter((one) => one.subject === picked.subjectId);

  return (
    <Container fluid my="md">
      <Title order={2} mb="md">
        {dashboard.data.title}
      </Title>
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 3, lg: 2 }}>
          <Paper withBorder p="sm" radius="md" component="section" aria-label="Data">
            <Stack gap="xs">
              <Title order={4}>Data</Title>
              <Select
                label="Subject"
                data={data.subjects.map((subject) => ({ value: String(subject.id), label: subject.name }))}
                value={picked.subjectId === null ? null : String(picked.subjectId)}
                onChange={(value) =>
                  choose(firstTrialOf(data.sessions.find((one) => String(one.subject) === value)?.id ?? null))
                }
                allowDeselect={false}
              />
              <Select
                label="Session"
                data={sessionsOfSubject.map((one) => ({
                  value: one.id,
                  label: sessionDisplayName({ ...one, sessionName: one.name }),
                }))}
                value={picked.session?.id ?? null}
                onChange={(value) => choose(firstTrialOf(value))}
                allowDeselect={false}
              />
              <Select
                label="Trial"
                data={data.trials
                  .filter((trial) => trial.session === picked.session?.id)
                  .map((trial) => ({ value: trial.id, label: trial.name }))}
                value={picked.trial?.id ?? null}
                onChange={(value) => choose(value ?? undefined)}
                allowDeselect={false}
              />
              {session.data?.is_owner && picked.trial && (
                <Button variant="default" onClick={() => setSharing(true)}>
                  Share
                </Button>
              )}
            </Stack>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 9, lg: 10 }}>
          {!picked.trial && (
            <Alert color="blue">
              No analysed trial yet: open a session, and choose Analysis in a processed trial's menu.
            </Alert>
          )}
          {failure && <Alert color="red">{failure.message}</Alert>}
          {picked.trial && !result.data && !result.error && <Loader aria-label="Loading the analysis result" />}
          {result.data && viewed && (
            <Grid gap="md">
              {dashboard.data.layout.columns.map((column, c) => (
                <Grid.Col key={c} span={columnSpans(dashboard.data.layout.columns)[c]}>
                  <Stack gap="md">
                    {column.widgets.map((widget, w) => (
                      <Widget
                        key={w}
                        widget={widget}
                        result={result.data}
                        trialId={viewed.id}
                        session={session.data}
                        clock={clock}
                        onClock={setClock}
                      />
                    ))}
                  </Stack>
                </Grid.Col>
              ))}
            </Grid>
          )}
        </Grid.Col>
      </Grid>
      {sharing && session.data && picked.trial && (
        <ShareDialog
          dashboardId={dashboardId}
          session={session.data}
          trialId={picked.trial.id}
          onClose={() => setSharing(false)}
        />
      )}
    </Container>
  );
}
