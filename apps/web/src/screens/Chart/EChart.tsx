import * as echarts from 'echarts';
import { useEffect, useRef } from 'react';

/**
 * One ECharts chart on a canvas, sized by its container. `option` replaces the previous one whole;
 * `onReady` receives the instance (for downloads and zoom resets) once it exists.
 */
export function EChart({
  option,
  onReady,
  height,
}: {
  option: echarts.EChartsOption;
  onReady: (chart: echarts.ECharts) => void;
  height: number;
}) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);

  useEffect(() => {
    const instance = echarts.init(host.current!, undefined, { renderer: 'canvas' });
    chart.current = instance;
    onReady(instance);
    const resize = new ResizeObserver(() => instance.resize());
    resize.observe(host.current!);
    return () => {
      resize.disconnect();
      instance.dispose();
      chart.current = null;
    };
    // The instance lives as long as the element; option changes go through setOption below.
  }, []);

  useEffect(() => {
    chart.current?.setOption(option, { notMerge: true });
  }, [option]);

  return <div ref={host} data-testid="chart" style={{ width: '100%', height }} />;
}
