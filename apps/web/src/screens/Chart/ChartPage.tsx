import {
  CHART_COLOUR_SCALES,
  CHART_DEFAULTS,
  CHART_LEGEND_POSITIONS,
  CHART_POINT_STYLES,
  RESULT_TAGS,
  chartMessages,
  type ChartColourScale,
  type Session,
  type Trial,
} from '@kinetrace/contracts';
import { writeCsv, type CsvColumn } from '@kinetrace/mocap/formats/csv';
import {
  Alert,
  Anchor,
  Button,
  Grid,
  Group,
  MultiSelect,
  NumberInput,
  Paper,
  Select,
  Stack,
  Title,
} from '@mantine/core';
import { useQueries } from '@tanstack/react-query';
import type * as echarts from 'echarts';
import { useMemo, useState } from 'react';
import { useSession } from '../../api/sessions.ts';
import { useSubjectSessions, useSubjects } from '../../api/subjects.ts';
import { resultFileQuery, resultUrl } from '../../api/trial-results.ts';
import { useAuth } from '../../app/auth-store.ts';
import { sessionDisplayName } from '../../components/session-name.ts';
import { LazyTrialViewer } from '../Session/viewer/LazyTrialViewer.tsx';
import type { PlaybackClock } from '../Session/viewer/playback-clock.ts';
import { seriesColour } from './colour-scale.ts';
import { EChart } from './EChart.tsx';
import { parseJointAngles, quantityOf, type JointAngles } from './joint-angles.ts';
import { useChartTimeLink } from './time-link.ts';

type PointStyle = (typeof CHART_POINT_STYLES)[number];
type LegendPosition = (typeof CHART_LEGEND_POSITIONS)[number];
const CHART_HEIGHT_PX = 480;

interface LoadedTrial {
  trial: Trial;
  angles: JointAngles;
}

const chartableTrials = (session: Session | undefined) =>
  (session?.trials ?? []).filter(
    (trial) => trial.status === 'done' && !trial.trashed && resultUrl(trial, RESULT_TAGS.ikJson),
  );

function download(href: string, fileName: string) {
  const link = document.createElement('a');
  link.href = href;
  link.download = fileName;
  link.click();
}

const legendPlacement: Record<LegendPosition, echarts.LegendComponentOption> = {
  bottom: { bottom: 0 },
  top: { top: 0 },
  left: { left: 0, top: 'middle', orient: 'vertical' },
  right: { right: 0, top: 'middle', orient: 'vertical' },
};

const anglesAndError = (results: { data?: JointAngles; error: Error | null }[]) => ({
  angles: results.map((result) => result.data),
  error: results.find((result) => result.error)?.error ?? null,
});

/** The signed-in user's subjects (the opened session's subject first). */
function SubjectPicker({
  first,
  subjectId,
  onChange,
}: {
  first: { value: string; label: string }[];
  subjectId: number | null;
  onChange: (id: number | null) => void;
}) {
  const subjects = useSubjects({ simple: true, quantity: -1 });
  const options = [
    ...first,
    ...(subjects.data?.subjects ?? []).map((subject) => ({ value: String(subject.id), label: subject.name })),
  ].filter((option, i, all) => all.findIndex((other) => other.value === option.value) === i);
  return (
    <Select
      label="Subject"
      placeholder="Choose a subject"
      data={options}
      value={subjectId === null ? (first[0]?.value ?? null) : String(subjectId)}
      onChange={(value) => onChange(value ? Number(value) : null)}
    />
  );
}

/**
 * Spec §2.14: the Data menu (subject, session, trials; x and y quantities) on the left, the chart in
 * the middle with zoom (wheel), pan (drag) and a reset, the Options menu on the right (defaults of
 * spec §9); the chart downloads as chart.png and its data as CSV, with each trial's .mot.
 */
export function ChartPage({ sessionId }: { sessionId: string | null }) {
  const { token } = useAuth();
  const initialSession = useSession(sessionId);
  const [subjectId, setSubjectId] = useState<number | null>(null);
  const [chosenSessionId, setChosenSessionId] = useState<string | null>(sessionId);
  const subjectSessions = useSubjectSessions(token ? subjectId : null);
  const session = useSession(chosenSessionId);
  const [trialIds, setTrialIds] = useState<string[]>([]);
  const [x, setX] = useState('time');
  const [ys, setYs] = useState<string[]>([]);
  const [lineWidth, setLineWidth] = useState<number | string>(CHART_DEFAULTS.lineWidth);
  const [pointRadius, setPointRadius] = useState<number | string>(CHART_DEFAULTS.pointRadius);
  const [pointStyle, setPointStyle] = useState<PointStyle>(CHART_DEFAULTS.pointStyle);
  const [legend, setLegend] = useState<LegendPosition>(CHART_DEFAULTS.legendPosition);
  const [colourScale, setColourScale] = useState<ChartColourScale>(CHART_DEFAULTS.colourScale);
  const [offset, setOffset] = useState<number | string>(CHART_DEFAULTS.offset);
  const [chart, setChart] = useState<echarts.ECharts | null>(null);
  const [clock, setClock] = useState<PlaybackClock | undefined>();

  const trials = useMemo(() => chartableTrials(session.data), [session.data]);
  const chosen = useMemo(() => trials.filter((trial) => trialIds.includes(trial.id)), [trials, trialIds]);
  const loaded = useQueries({
    queries: chosen.map((trial) =>
      resultFileQuery(resultUrl(trial, RESULT_TAGS.ikJson), async (response) =>
        parseJointAngles(await response.json()),
      ),
    ),
    combine: anglesAndError,
  });
  const loadedTrials = useMemo<LoadedTrial[]>(
    () => chosen.flatMap((trial, i) => (loaded.angles[i] ? [{ trial, angles: loaded.angles[i] }] : [])),
    [chosen, loaded],
  );
  const quantities = useMemo(
    () => [...new Set(loadedTrials.flatMap(({ angles }) => Object.keys(angles.coordinates)))],
    [loadedTrials],
  );

  // The opened session's subject and session come first (a public session's are not the visitor's own).
  const sessionSubject = initialSession.data?.subject
    ? [{ value: String(initialSession.data.subject), label: initialSession.data.name ?? 'Subject' }]
    : [];
  const sessionOptions = [
    ...(initialSession.data
      ? [
          {
            value: initialSession.data.id,
            label: sessionDisplayName({
              id: initialSession.data.id,
              sessionName: initialSession.data.meta.sessionName,
              created_at: initialSession.data.created_at,
            }),
          },
        ]
      : []),
    ...(subjectSessions.data?.sessions ?? []).map((row) => ({ value: row.id, label: sessionDisplayName(row) })),
  ].filter((option, i, all) => all.findIndex((other) => other.value === option.value) === i);

  const multiTrial = loadedTrials.length > 1;
  const plotted = useMemo(
    () =>
      loadedTrials.flatMap(({ trial, angles }) =>
        ys.map((y) => ({ trial, angles, y, name: multiTrial ? `${trial.name} ${y}` : y })),
      ),
    [loadedTrials, ys, multiTrial],
  );
  const offsetValue = typeof offset === 'number' ? offset : 0;
  const option = useMemo<echarts.EChartsOption>(
    () => ({
      animation: false,
      aria: { enabled: true },
      grid: { left: 60, right: 30, top: 30, bottom: legend === 'bottom' ? 70 : 50, containLabel: true },
      legend: { ...legendPlacement[legend], type: 'scroll' },
      tooltip: { trigger: 'axis' },
      xAxis: { type: 'value', name: x, nameLocation: 'middle', nameGap: 28, scale: true },
      yAxis: { type: 'value', scale: true },
      dataZoom: [
        { type: 'inside', xAxisIndex: 0, filterMode: 'none' },
        { type: 'inside', yAxisIndex: 0, filterMode: 'none' },
      ],
      series: plotted.map(({ angles, y, name }, index) => {
        const xs = quantityOf(angles, x);
        const values = quantityOf(angles, y);
        return {
          type: 'line',
          name,
          // Series k is raised by k offsets, so overlaid curves can be told apart; a missing value stays a gap.
          data: xs.map((value, i) => [value, values[i] == null ? null : values[i] + index * offsetValue]),
          lineStyle: { width: typeof lineWidth === 'number' ? lineWidth : CHART_DEFAULTS.lineWidth },
          color: seriesColour(colourScale, index, plotted.length),
          showSymbol: pointStyle !== 'none',
          symbol: pointStyle === 'none' ? 'none' : pointStyle,
          // ECharts sizes a symbol by its diameter.
          symbolSize: 2 * (typeof pointRadius === 'number' ? pointRadius : CHART_DEFAULTS.pointRadius),
        };
      }),
    }),
    [plotted, x, legend, lineWidth, pointRadius, pointStyle, colourScale, offsetValue],
  );

  // Against time, the first trial plays in the viewer below, its time linked with the chart's cursor.
  const viewed =
    x === 'time'
      ? loadedTrials.find(({ trial }) => resultUrl(trial, RESULT_TAGS.visualizerTransforms))?.trial
      : undefined;
  useChartTimeLink(chart, viewed && plotted.length > 0 ? clock : undefined, option);

  const downloadCsv = () => {
    const columns: CsvColumn[] = loadedTrials.flatMap(({ trial, angles }) => {
      const label = (quantity: string) => (multiTrial ? `${trial.name} ${quantity}` : quantity);
      return [x, ...ys].map((quantity) => ({ label: label(quantity), values: quantityOf(angles, quantity) }));
    });
    download(URL.createObjectURL(new Blob([writeCsv(columns)], { type: 'text/csv' })), 'chart-data.csv');
  };

  return (
    <Grid gap="md">
      <Grid.Col span={{ base: 12, md: 3 }}>
        <Paper withBorder p="sm" radius="md" component="section" aria-label="Data">
          <Stack gap="xs">
            <Title order={4}>Data</Title>
            {token ? (
              <SubjectPicker first={sessionSubject} subjectId={subjectId} onChange={setSubjectId} />
            ) : (
              <Select label="Subject" data={sessionSubject} value={sessionSubject[0]?.value ?? null} readOnly />
            )}
            <Select
              label="Session"
              placeholder="Choose a session"
              data={sessionOptions}
              value={chosenSessionId}
              onChange={(value) => (setChosenSessionId(value), setTrialIds([]))}
            />
            <MultiSelect
              label="Trials"
              placeholder="Choose trials"
              data={trials.map((trial) => ({ value: trial.id, label: trial.name }))}
              value={trialIds}
              onChange={setTrialIds}
            />
            <Select
              label="X quantity"
              data={['time', ...quantities]}
              value={x}
              onChange={(value) => setX(value ?? 'time')}
              allowDeselect={false}
            />
            <MultiSelect
              label="Y quantities"
              placeholder="Choose joint angles"
              data={quantities}
              value={ys}
              onChange={setYs}
              searchable
            />
          </Stack>
        </Paper>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 6 }}>
        <Stack gap="xs">
          {loaded.error && <Alert color="red">{loaded.error.message}</Alert>}
          <EChart option={option} height={CHART_HEIGHT_PX} onReady={setChart} />
          <Group gap="xs">
            <Button
              variant="default"
              size="xs"
              onClick={() => chart?.dispatchAction({ type: 'dataZoom', start: 0, end: 100 })}
            >
              Reset zoom
            </Button>
            <Button
              variant="default"
              size="xs"
              onClick={() =>
                chart &&
                download(chart.getDataURL({ type: 'png', pixelRatio: 1, backgroundColor: '#ffffff' }), 'chart.png')
              }
            >
              Download chart.png
            </Button>
            <Button variant="default" size="xs" disabled={plotted.length === 0} onClick={downloadCsv}>
              Download data (CSV)
            </Button>
            {loadedTrials.map(({ trial }) => {
              const mot = resultUrl(trial, RESULT_TAGS.ikResults);
              return mot ? (
                <Anchor key={trial.id} size="xs" href={mot} download={`${trial.name}.mot`}>
                  {trial.name}.mot
                </Anchor>
              ) : null;
            })}
          </Group>
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 3 }}>
        <Paper withBorder p="sm" radius="md" component="section" aria-label="Options">
          <Stack gap="xs">
            <Title order={4}>Options</Title>
            <NumberInput label="Line width" min={1} max={20} value={lineWidth} onChange={setLineWidth} />
            <NumberInput label="Point radius" min={1} max={30} value={pointRadius} onChange={setPointRadius} />
            <Select
              label="Point style"
              data={[...CHART_POINT_STYLES]}
              value={pointStyle}
              onChange={(value) => value && setPointStyle(value as PointStyle)}
              allowDeselect={false}
            />
            <Select
              label="Legend position"
              data={[...CHART_LEGEND_POSITIONS]}
              value={legend}
              onChange={(value) => value && setLegend(value as LegendPosition)}
              allowDeselect={false}
            />
            <Select
              label="Colour scale"
              data={Object.keys(CHART_COLOUR_SCALES)}
              value={colourScale}
              onChange={(value) => value && setColourScale(value as ChartColourScale)}
              allowDeselect={false}
            />
            <NumberInput
              label="Offset"
              step={CHART_DEFAULTS.offsetStep}
              decimalScale={4}
              value={offset}
              onChange={setOffset}
              error={typeof offset === 'number' ? undefined : chartMessages.offsetNotNumber}
            />
          </Stack>
        </Paper>
      </Grid.Col>
      {viewed && session.data && (
        <Grid.Col span={12}>
          <LazyTrialViewer session={session.data} trial={viewed} onClock={setClock} />
        </Grid.Col>
      )}
    </Grid>
  );
}
