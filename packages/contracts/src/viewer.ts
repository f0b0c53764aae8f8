/** The trial viewer's playback (spec §2.13, §9) and the chart page's options (spec §2.14, §9). */

/** Autoplay starts this long after a trial opens (spec §9)... */
export const AUTOPLAY_DELAY_MS = 2_000;
/** ...or 10000 / downlink ms where the browser reports the connection's downlink in Mbit/s (spec §9). */
export const autoplayDelayMs = (downlinkMbps: number | undefined): number =>
  downlinkMbps !== undefined && downlinkMbps > 0 ? 10_000 / downlinkMbps : AUTOPLAY_DELAY_MS;
/** The analysis dashboard's visualizer starts playing after 1 s (spec §9). */
export const DASHBOARD_AUTOPLAY_DELAY_MS = 1_000;

/**
 * Colour scales of the chart's Options menu (spec §9), as stops a series' colour is interpolated
 * between, first series to last. Viridis: matplotlib's viridis at 0, 0.25, 0.5, 0.75, 1; Hot:
 * matplotlib's hot at 0.1 to 0.9; the others: ColorBrewer 9-class sequential schemes (YlGnBu, YlGn,
 * Greys, Blues; Brewer, colorbrewer2.org) without their palest classes, which vanish on white.
 */
export const CHART_COLOUR_SCALES = {
  Viridis: ['#440154', '#3b528b', '#21918c', '#5ec962', '#fde725'],
  Hot: ['#450000', '#d20000', '#ff5e00', '#ffeb00', '#ffffa1'],
  'Yellow-Blue': ['#c7e9b4', '#7fcdbb', '#41b6c4', '#225ea8', '#081d58'],
  'Yellow-Green': ['#d9f0a3', '#addd8e', '#78c679', '#238443', '#004529'],
  Grays: ['#bdbdbd', '#969696', '#737373', '#525252', '#252525'],
  Blues: ['#9ecae1', '#6baed6', '#4292c6', '#2171b5', '#08306b'],
} as const;
export type ChartColourScale = keyof typeof CHART_COLOUR_SCALES;

export const CHART_POINT_STYLES = ['none', 'circle', 'rect', 'triangle', 'diamond'] as const;
export const CHART_LEGEND_POSITIONS = ['bottom', 'top', 'left', 'right'] as const;

/** Chart defaults (spec §9). */
export const CHART_DEFAULTS = {
  lineWidth: 5,
  pointRadius: 12,
  pointStyle: 'none',
  legendPosition: 'bottom',
  colourScale: 'Viridis',
  offset: 0,
  /** Step of the offset field. */
  offsetStep: 0.01,
} as const satisfies {
  lineWidth: number;
  pointRadius: number;
  pointStyle: (typeof CHART_POINT_STYLES)[number];
  legendPosition: (typeof CHART_LEGEND_POSITIONS)[number];
  colourScale: ChartColourScale;
  offset: number;
  offsetStep: number;
};

export const chartMessages = {
  offsetNotNumber: 'Must be a number',
} as const;
