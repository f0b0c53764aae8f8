import type { AnalysisMetric, AnalysisResult } from '@kinetrace/contracts';
import { Box, Group, Paper, SimpleGrid, Stack, Text, Tooltip } from '@mantine/core';

/** The metrics a widget names (all of the result's when it names none), skipping keys the result lacks. */
export function chosenMetrics(result: AnalysisResult, keys: string[] | undefined): [string, AnalysisMetric][] {
  return (keys ?? Object.keys(result.metrics)).flatMap((key) =>
    result.metrics[key] ? [[key, result.metrics[key]] as [string, AnalysisMetric]] : [],
  );
}

/** Digits enough for the figure's size: 1.234 m, 12.3 %, 112 steps/min. */
const format = (value: number) => value.toFixed(Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2);

/** The zone (0 below min_limit, 1 between the limits, 2 above max_limit) a value falls in. */
export function zoneOf(metric: AnalysisMetric): 0 | 1 | 2 {
  if (metric.min_limit !== null && metric.value < metric.min_limit) return 0;
  if (metric.max_limit !== null && metric.value > metric.max_limit) return 2;
  return 1;
}

/** Value ± SD cards, each coloured by the zone its value falls in, the limits' source in a tooltip. */
export function MetricCards({ metrics }: { metrics: [string, AnalysisMetric][] }) {
  return (
    <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
      {metrics.map(([key, metric]) => {
        const zone = zoneOf(metric);
        return (
          <Tooltip key={key} label={metric.info} multiline w={300} disabled={!metric.info}>
            <Paper
              withBorder
              p="xs"
              radius="md"
              data-metric={key}
              style={{ borderLeft: `6px solid ${metric.colors[zone]}` }}
            >
              <Text size="xs" c="dimmed">
                {metric.label}
              </Text>
              <Text fw={700} data-testid="metric-value">
                {format(metric.value)} ± {format(metric.std)} {metric.unit}
              </Text>
              <Text size="xs">{metric.classes[zone]}</Text>
            </Paper>
          </Tooltip>
        );
      })}
    </SimpleGrid>
  );
}

/**
 * Where the bar starts and ends: the limits and the value with a margin of a quarter of the span on
 * each side, so every zone shows even when the value sits on a limit.
 */
export function barScale(metric: AnalysisMetric): { low: number; high: number } {
  const points = [metric.value, metric.min_limit, metric.max_limit].filter((point): point is number => point !== null);
  const [min, max] = [Math.min(...points), Math.max(...points)];
  const margin = Math.max(max - min, Math.abs(metric.value) * 0.2, 1e-6) * 0.25;
  return { low: min - margin, high: max + margin };
}

/** A bar per metric: coloured zones below, between and above the limits, and a tick at the value. */
export function MetricBars({ metrics }: { metrics: [string, AnalysisMetric][] }) {
  return (
    <Stack gap="sm">
      {metrics.map(([key, metric]) => {
        const { low, high } = barScale(metric);
        const at = (value: number) => ((value - low) / (high - low)) * 100;
        const lower = metric.min_limit === null ? 0 : at(metric.min_limit);
        const upper = metric.max_limit === null ? 100 : at(metric.max_limit);
        const zones = [
          { from: 0, to: lower, colour: metric.colors[0], name: metric.classes[0] },
          { from: lower, to: upper, colour: metric.colors[1], name: metric.classes[1] },
          { from: upper, to: 100, colour: metric.colors[2], name: metric.classes[2] },
        ].filter((zone) => zone.to > zone.from);
        return (
          <div key={key} data-metric-bar={key} data-value-percent={at(metric.value).toFixed(2)}>
            <Group justify="space-between" gap="xs">
              <Text size="sm">{metric.label}</Text>
              <Text size="sm" fw={600}>
                {format(metric.value)} {metric.unit}
              </Text>
            </Group>
            <Box
              pos="relative"
              h={14}
              role="img"
              aria-label={`${metric.label}: ${format(metric.value)} ${metric.unit}, ${metric.classes[zoneOf(metric)]}`}
            >
              {zones.map((zone) => (
                <Box
                  key={zone.name}
                  pos="absolute"
                  top={2}
                  h={10}
                  title={zone.name}
                  style={{
                    left: `${zone.from}%`,
                    width: `${zone.to - zone.from}%`,
                    background: zone.colour,
                    opacity: 0.75,
                  }}
                />
              ))}
              <Box
                pos="absolute"
                top={0}
                h={14}
                w={3}
                bg="dark"
                data-testid="metric-tick"
                style={{ left: `calc(${at(metric.value)}% - 1.5px)` }}
              />
            </Box>
            {/* Each limit's figure under its zone border. */}
            <Box pos="relative" h={16}>
              {[metric.min_limit, metric.max_limit].map((limit, i) =>
                limit === null ? null : (
                  <Text
                    key={i}
                    size="xs"
                    c="dimmed"
                    pos="absolute"
                    style={{ left: `${at(limit)}%`, transform: 'translateX(-50%)' }}
                  >
                    {format(limit)}
                  </Text>
                ),
              )}
            </Box>
          </div>
        );
      })}
    </Stack>
  );
}
