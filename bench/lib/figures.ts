// Rows of single figures measured once per round (time to listen, idle memory), where lower is better.
import { formatTable } from './measure.js';

/** One figure of the gateway against the same figure of a bare baseline, measured `rounds` times each. */
export interface FigureRow {
  kind: 'figure';
  surface: string;
  /** Unit of every value, e.g. `ms` or `MB`. */
  unit: string;
  /** One value per round, in round order. */
  baseline: number[];
  gateway: number[];
  /** The gateway's median must be at most this, in `unit`. */
  maxGateway: number;
}

export function isFigureRow(row: unknown): row is FigureRow {
  return typeof row === 'object' && row !== null && 'kind' in row && row.kind === 'figure';
}

/** The lower middle value of an ascending copy; NaN when there is none. */
/** A figure in ms whose gateway side may exceed the median of its baseline by at most `maxAddedMs`. */
export function addedMsFigure(surface: string, baseline: number[], gateway: number[], maxAddedMs: number): FigureRow {
  return {
    kind: 'figure',
    surface,
    unit: 'ms',
    baseline,
    gateway,
    maxGateway: Number((median(baseline) + maxAddedMs).toFixed(2)),
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'n/a';
  return Math.abs(value) < 10 ? value.toFixed(2) : value.toFixed(1);
}

/** Medians of each side, gateway over baseline, the target on the gateway's median and whether it was met, every round's values. */
export function formatFigures(rows: readonly FigureRow[]): string {
  const header = ['surface', 'baseline', 'gateway', 'ratio g/b', 'target', 'met', 'rounds b', 'rounds g'];
  const body = rows.map((row) => {
    const baseline = median(row.baseline);
    const gateway = median(row.gateway);
    return [
      row.surface,
      `${formatValue(baseline)} ${row.unit}`,
      `${formatValue(gateway)} ${row.unit}`,
      Number.isNaN(baseline) || baseline === 0 ? 'n/a' : (gateway / baseline).toFixed(2),
      `gateway <= ${row.maxGateway} ${row.unit}`,
      gateway <= row.maxGateway ? 'yes' : 'no',
      row.baseline.map(formatValue).join(', '),
      row.gateway.map(formatValue).join(', '),
    ];
  });
  return formatTable(header, body);
}
