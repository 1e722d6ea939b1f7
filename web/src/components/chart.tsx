// A bar or line chart drawn by uPlot (loaded with the page that uses it), sized to its box, with the data as a table.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { isDark, theme } from '../lib/theme';

export interface ChartSeries {
  label: string;
  values: number[];
}

interface ChartProps {
  title: string;
  /** Category labels, one per point. */
  labels: string[];
  series: ChartSeries[];
  kind?: 'bar' | 'line';
  height?: number;
}

const PALETTE = ['#3b82f6', '#f97316', '#10b981', '#a855f7', '#ef4444'];

export function Chart({ title, labels, series, kind = 'bar', height = 220 }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const themeChoice = theme.value;
  useEffect(() => {
    const element = box.current;
    if (element === null || labels.length === 0) return;
    const axisColor = isDark() ? '#a9b1bd' : '#4d5562';
    const gridColor = isDark() ? '#2f3540' : '#e5e7eb';
    const xs = labels.map((_label, index) => index);
    const axis = { stroke: axisColor, grid: { stroke: gridColor, width: 1 }, ticks: { stroke: gridColor, width: 1 } };
    const plot = new uPlot(
      {
        width: Math.max(200, element.clientWidth),
        height,
        legend: { show: series.length > 1, live: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: false } },
        axes: [{ ...axis, values: (_self, ticks) => ticks.map((tick) => labels[tick] ?? '') }, axis],
        series: [
          {},
          ...series.map((entry, index) => ({
            label: entry.label,
            stroke: PALETTE[index % PALETTE.length],
            fill: kind === 'bar' ? `${PALETTE[index % PALETTE.length]}99` : undefined,
            width: kind === 'bar' ? 0 : 2,
            ...(kind === 'bar' ? { paths: uPlot.paths.bars?.({ size: [0.6, 48] }) } : {}),
          })),
        ],
      },
      [xs, ...series.map((entry) => entry.values)],
      element,
    );
    const observer = new ResizeObserver(() => plot.setSize({ width: Math.max(200, element.clientWidth), height }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [labels, series, kind, height, themeChoice]);
  return (
    <figure class="chart-figure" style={{ margin: 0 }}>
      <div class="chart" ref={box} role="img" aria-label={`${title} chart; the same data is in the table below`} />
      <details>
        <summary>{title}: data table</summary>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Label</th>
                {series.map((entry) => (
                  <th scope="col" key={entry.label}>
                    {entry.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {labels.map((label, index) => (
                <tr key={`${index}:${label}`}>
                  <td>{label}</td>
                  {series.map((entry) => (
                    <td key={entry.label}>{(entry.values[index] ?? 0).toLocaleString()}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
