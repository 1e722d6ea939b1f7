// Counters and histograms the request path updates as plain numbers; prom-client reads them when /metrics is scraped.
import { Counter, Histogram, type Registry } from 'prom-client';

/** A series' label values by label name; a name left out is a label the series does not carry. */
export type SeriesLabels = Readonly<Record<string, string>>;

export interface MetricConfig {
  name: string;
  help: string;
  labelNames: readonly string[];
  registers: Registry[];
}

export interface CountedSeries {
  /** Adds `value` (default 1); a negative or non-finite value is ignored, as it cannot be exposed. */
  inc(value?: number): void;
}

export interface ObservedSeries {
  /** Counts `value` into its bucket, the sum and the count; a non-finite value is ignored. */
  observe(value: number): void;
}

interface CounterRecord {
  labels: SeriesLabels;
  value: number;
  /** Shown once incremented (even by 0), as prom-client shows a series from its first inc. */
  isSet: boolean;
}

interface HistogramRecord {
  labels: SeriesLabels;
  /** Observations per bucket, not cumulative: counts[i] holds those in (buckets[i-1], buckets[i]]. */
  counts: number[];
  sum: number;
  count: number;
}

/** One record per distinct label set, however many callers ask for it (two children may share a series). */
function seriesOf<R>(make: (labels: SeriesLabels) => R) {
  const records = new Map<string, R>();
  return {
    records,
    get(labels: SeriesLabels): R {
      const key = Object.entries(labels)
        .map(([name, value]) => `${name}=${value}`)
        .join('\u0000');
      let record = records.get(key);
      if (record === undefined) {
        record = make(labels);
        records.set(key, record);
      }
      return record;
    },
  };
}

/**
 * A counter whose series are plain numbers: an increment is one addition, with none of prom-client's label hashing
 * and validation per call. The prom-client Counter is rebuilt from them at each scrape (its collect callback).
 */
export function batchedCounter(config: MetricConfig): (labels: SeriesLabels) => CountedSeries {
  const series = seriesOf<CounterRecord>((labels) => ({ labels, value: 0, isSet: false }));
  new Counter({
    ...config,
    labelNames: [...config.labelNames],
    collect() {
      this.reset();
      for (const record of series.records.values()) if (record.isSet) this.inc({ ...record.labels }, record.value);
    },
  });
  return (labels) => {
    const record = series.get(labels);
    return {
      inc(value = 1) {
        if (!Number.isFinite(value) || value < 0) return;
        record.value += value;
        record.isSet = true;
      },
    };
  };
}

/**
 * A histogram whose series are bucket counts, a sum and a count. At each scrape they become the prom-client
 * Histogram's series in the shape its exposition reads (prom-client 15: `hashMap` of {labels, bucketValues by upper
 * bound, sum, count}), so the text is what prom-client's own observe would have produced (test/metrics).
 */
export function batchedHistogram(
  config: MetricConfig & { buckets: readonly number[] },
): (labels: SeriesLabels) => ObservedSeries {
  const buckets = [...config.buckets];
  const series = seriesOf<HistogramRecord>((labels) => ({
    labels,
    counts: buckets.map(() => 0),
    sum: 0,
    count: 0,
  }));
  new Histogram({
    ...config,
    labelNames: [...config.labelNames],
    buckets,
    collect() {
      const hashMap: Record<string, unknown> = {};
      let index = 0;
      for (const record of series.records.values()) {
        if (record.count === 0) continue;
        const bucketValues: Record<string, number> = {};
        buckets.forEach((bound, at) => {
          bucketValues[String(bound)] = record.counts[at] ?? 0;
        });
        hashMap[`s${(index += 1)}`] = {
          labels: { ...record.labels },
          bucketValues,
          sum: record.sum,
          count: record.count,
        };
      }
      Object.assign(this, { hashMap });
    },
  });
  return (labels) => {
    const record = series.get(labels);
    return {
      observe(value) {
        if (!Number.isFinite(value)) return;
        // Past the last bound a value is only in +Inf, which is the count.
        const at = buckets.findIndex((bound) => value <= bound);
        if (at !== -1) record.counts[at] = (record.counts[at] ?? 0) + 1;
        record.sum += value;
        record.count += 1;
      },
    };
  };
}
