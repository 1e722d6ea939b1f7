// Reads a Prometheus text exposition with parse-prometheus-text-format (no types of its own: loaded with require and
// narrowed here), and sums its samples by name and labels. The parser folds a histogram's series into one and drops
// their labels, so a histogram is read as its `_sum` and `_count` series (its TYPE and HELP lines taken out first).
import { createRequire } from 'node:module';

export interface PromSample {
  labels: Record<string, string>;
  value?: number;
}

export interface PromFamily {
  name: string;
  type: string;
  samples: PromSample[];
}

const require = createRequire(import.meta.url);
const parseText: unknown = require('parse-prometheus-text-format');

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function numberOf(value: unknown): number | undefined {
  return typeof value === 'string' ? Number(value) : undefined;
}

function stringRecord(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, String(entry)]));
}

/** The families of `text`, keyed by name (a histogram's as `<name>_bucket`, `_sum`, `_count`); throws on text the parser refuses. */
export function parsePrometheus(text: string): Map<string, PromFamily> {
  if (typeof parseText !== 'function') throw new Error('parse-prometheus-text-format exports no function');
  const histograms = new Set([...text.matchAll(/^# TYPE (\S+) histogram$/gm)].map((match) => match[1]));
  const lines = text.split('\n').filter((line) => {
    const declared = /^# (?:TYPE|HELP) (\S+)/.exec(line);
    return declared === null || !histograms.has(declared[1]);
  });
  const parsed: unknown = parseText(lines.join('\n'));
  if (!Array.isArray(parsed)) throw new Error('the parser returned no list');
  const families = new Map<string, PromFamily>();
  for (const family of parsed) {
    if (!isRecord(family) || typeof family.name !== 'string' || !Array.isArray(family.metrics)) continue;
    const samples = family.metrics.filter(isRecord).map((metric): PromSample => {
      const value = numberOf(metric.value);
      return { labels: stringRecord(metric.labels), ...(value === undefined ? {} : { value }) };
    });
    // A histogram's series come label set by label set: the same name recurs and its samples are gathered.
    const known = families.get(family.name);
    if (known === undefined) families.set(family.name, { name: family.name, type: String(family.type), samples });
    else known.samples.push(...samples);
  }
  return families;
}

const matches = (sample: PromSample, labels: Record<string, string>) =>
  Object.entries(labels).every(([key, value]) => sample.labels[key] === value);

/** The summed value (counters, gauges) of the samples of `name` whose labels include `labels`; 0 when none. */
export function valueOf(families: Map<string, PromFamily>, name: string, labels: Record<string, string> = {}): number {
  const samples = families.get(name)?.samples ?? [];
  return samples.filter((sample) => matches(sample, labels)).reduce((total, sample) => total + (sample.value ?? 0), 0);
}

/** A histogram's summed count and sum over the samples whose labels include `labels`. */
export function histogramOf(
  families: Map<string, PromFamily>,
  name: string,
  labels: Record<string, string> = {},
): { count: number; sum: number } {
  return { count: valueOf(families, `${name}_count`, labels), sum: valueOf(families, `${name}_sum`, labels) };
}

/**
 * Distinct values of every label (a histogram's `le` aside) over the families whose name passes `select` (default:
 * the gateway's own and the GenAI ones, not Node's process metrics), by label name.
 */
export function labelValues(
  families: Map<string, PromFamily>,
  select: (name: string) => boolean = (name) => /^(gateway|gen_ai)_/.test(name),
): Map<string, Set<string>> {
  const values = new Map<string, Set<string>>();
  for (const family of families.values()) {
    if (!select(family.name)) continue;
    for (const sample of family.samples)
      for (const [label, value] of Object.entries(sample.labels)) {
        if (label === 'le') continue;
        const set = values.get(label) ?? new Set<string>();
        set.add(value);
        values.set(label, set);
      }
  }
  return values;
}
