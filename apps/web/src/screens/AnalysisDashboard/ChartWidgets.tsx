import type { AnalysisResult } from '@kinetrace/contracts';
import { Stack } from '@mantine/core';
import type * as echarts from 'echarts';
import { useMemo, useState } from 'react';
import { EChart } from '../Chart/EChart.tsx';
import { useChartTimeLink } from '../Chart/time-link.ts';
import type { PlaybackClock } from '../Session/viewer/playback-clock.ts';

const LINE_CHART_HEIGHT_PX = 280;
const CURVE_CHART_HEIGHT_PX = 240;
/** Left and right as gait reports draw them (left red, right blue). */
const SIDE_COLOURS = { left: '#e03131', right: '#1971c2', both: '#2f9e44' } as const;

const baseOption = (xName: string): echarts.EChartsOption => ({
  animation: false,
  aria: { enabled: true },
  grid: { left: 50, right: 20, top: 30, bottom: 50, containLabel: true },
  legend: { bottom: 0, type: 'scroll' },
  tooltip: { trigger: 'axis' },
  xAxis: { type: 'value', name: xName, nameLocation: 'middle', nameGap: 26, scale: true },
  yAxis: { type: 'value', scale: true },
});

/**
 * The result's datasets against its x axis (time) over the analysed window; the viewer's time is a
 * marker on it, and a click on it moves the viewer there.
 */
export function LineChartWidget({
  result,
  y,
  clock,
}: {
  result: AnalysisResult;
  y: string[] | undefined;
  clock: PlaybackClock | undefined;
}) {
  const [chart, setChart] = useState<echarts.ECharts | null>(null);
  const option = useMemo<echarts.EChartsOption>(() => {
    const xs = result.datasets[result.x_axis] ?? [];
    const quantities = (y ?? result.y_axis).filter((name) => result.datasets[name]);
    return {
      ...baseOption(result.x_axis),
      series: quantities.map((name) => ({
        type: 'line',
        name,
        showSymbol: false,
        data: xs.map((x, i) => [x, result.datasets[name][i] ?? null]),
      })),
    };
  }, [result, y]);
  const charted = (option.series as unknown[]).length > 0;
  // The marker only where the x axis is the viewer's time.
  useChartTimeLink(chart, charted && result.x_axis === 'time' ? clock : undefined, option);
  return <EChart option={option} height={LINE_CHART_HEIGHT_PX} onReady={setChart} />;
}

/** One chart per quantity: the mean over cycles with a ± SD band, left and right, against % of the cycle. */
export function CycleCurves({ result }: { result: AnalysisResult }) {
  const byQuantity = useMemo(() => {
    const groups = new Map<string, AnalysisResult['curves']>();
    for (const curve of result.curves) {
      // OpenSim names a side's coordinate with _r or _l; the label ends with the side in brackets.
      const joint = curve.side === 'both' ? curve.quantity : curve.quantity.replace(/_[rl]$/, '');
      groups.set(joint, [...(groups.get(joint) ?? []), curve]);
    }
    return [...groups.entries()].map(
      ([joint, curves]) =>
        [
          joint,
          curves[0].side === 'both' ? curves[0].label : curves[0].label.replace(/\s*\([^)]*\)$/, ''),
          curves,
        ] as const,
    );
  }, [result]);
  return (
    <Stack gap="xs">
      {byQuantity.map(([joint, label, curves]) => (
        <CurveChart key={joint} label={label} curves={curves} />
      ))}
    </Stack>
  );
}

function CurveChart({ label, curves }: { label: string; curves: AnalysisResult['curves'] }) {
  const option = useMemo<echarts.EChartsOption>(
    () => ({
      ...baseOption('% of cycle'),
      title: { text: label, left: 'center', textStyle: { fontSize: 13 } },
      legend: { bottom: 0, data: curves.map((curve) => `${curve.side} (n=${curve.count})`) },
      series: curves.flatMap((curve) => {
        const name = `${curve.side} (n=${curve.count})`;
        const colour = SIDE_COLOURS[curve.side];
        const stack = `${curve.quantity}-${curve.side}`;
        // 'all': the SD stacks on the lower edge whatever their signs (angles go negative).
        const stackStrategy = 'all' as const;
        // The band's two invisible lines, stacked: one at mean − SD, and 2 SD on it, filled.
        const bandEdge = {
          type: 'line',
          name,
          color: colour,
          stack,
          stackStrategy,
          silent: true,
          showSymbol: false,
          lineStyle: { opacity: 0 },
          tooltip: { show: false },
        } as const;
        return [
          { ...bandEdge, data: curve.percent.map((p, i) => [p, curve.mean[i] - curve.std[i]]) },
          {
            ...bandEdge,
            areaStyle: { color: colour, opacity: 0.2 },
            data: curve.percent.map((p, i) => [p, 2 * curve.std[i]]),
          },
          {
            type: 'line',
            name,
            color: colour,
            showSymbol: false,
            lineStyle: { width: 2 },
            data: curve.percent.map((p, i) => [p, curve.mean[i]]),
          },
        ] satisfies echarts.LineSeriesOption[];
      }),
    }),
    [label, curves],
  );
  return <EChart option={option} height={CURVE_CHART_HEIGHT_PX} onReady={() => undefined} />;
}
