import type * as echarts from 'echarts';
import { useEffect } from 'react';
import type { PlaybackClock } from '../Session/viewer/playback-clock.ts';

const CURSOR_COLOUR = '#e8590c';

/** The vertical time marker, merged into the chart's first series (a series of its own would count in the chart's description). */
const cursorOption = (timeS: number): echarts.EChartsOption => ({
  series: [
    {
      markLine: {
        silent: true,
        animation: false,
        symbol: ['none', 'none'],
        label: { show: false },
        lineStyle: { color: CURSOR_COLOUR, type: 'solid', width: 2 },
        data: [{ xAxis: timeS }],
      },
    },
  ],
});

/**
 * Links a chart whose x axis is time (s) with a viewer's playback clock, both ways: the clock's time
 * is drawn as a vertical marker on the chart, and a click in the chart's plot area moves the clock
 * there. `option` is the chart's current option: the marker is laid again over each new one. The chart's
 * element carries `data-cursor-time` and `data-cursor-x` (the marker's time and its pixel column).
 */
export function useChartTimeLink(
  chart: echarts.ECharts | null,
  clock: PlaybackClock | undefined,
  option: echarts.EChartsOption,
): void {
  useEffect(() => {
    if (!chart || !clock) return;
    const host = chart.getDom();
    let shownS: number | undefined;
    const draw = () => {
      const { timeS } = clock.snapshot;
      if (timeS === shownS) return;
      shownS = timeS;
      chart.setOption(cursorOption(timeS));
      host.dataset.cursorTime = timeS.toFixed(4);
      const [x] = chart.convertToPixel({ gridIndex: 0 }, [timeS, 0]) ?? [];
      if (Number.isFinite(x)) host.dataset.cursorX = x.toFixed(1);
    };
    const seekAtClick = (event: { offsetX: number; offsetY: number }) => {
      const pixel = [event.offsetX, event.offsetY];
      if (!chart.containPixel({ gridIndex: 0 }, pixel)) return;
      const [timeS] = chart.convertFromPixel({ gridIndex: 0 }, pixel);
      if (Number.isFinite(timeS)) clock.seek(timeS);
    };
    // Zooming or panning moves the marker's pixel column.
    const redraw = () => ((shownS = undefined), draw());
    draw();
    const unsubscribe = clock.subscribe(draw);
    chart.getZr().on('click', seekAtClick);
    chart.on('datazoom', redraw);
    return () => {
      unsubscribe();
      chart.getZr().off('click', seekAtClick);
      chart.off('datazoom', redraw);
      delete host.dataset.cursorTime;
      delete host.dataset.cursorX;
    };
  }, [chart, clock, option]);
}
