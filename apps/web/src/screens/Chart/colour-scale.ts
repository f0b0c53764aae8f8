import { CHART_COLOUR_SCALES, type ChartColourScale } from '@kinetrace/contracts';

const channels = (hex: string) => [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));

/** The colour of series `index` of `count`: evenly spread over the scale's stops, first stop to last. */
export function seriesColour(scale: ChartColourScale, index: number, count: number): string {
  const stops = CHART_COLOUR_SCALES[scale];
  const position = count <= 1 ? 0 : (index / (count - 1)) * (stops.length - 1);
  const lower = Math.floor(position);
  const upper = Math.min(stops.length - 1, lower + 1);
  const fraction = position - lower;
  const [a, b] = [channels(stops[lower]), channels(stops[upper])];
  return `#${a
    .map((value, k) =>
      Math.round(value + (b[k] - value) * fraction)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}
