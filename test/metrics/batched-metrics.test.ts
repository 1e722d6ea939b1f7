// Counters and histograms kept as plain numbers expose, at each scrape, the same text prom-client's own instruments do.
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { batchedCounter, batchedHistogram } from '../../src/metrics/batched-metrics.js';

const BUCKETS = [0.01, 0.1, 1, 10];
const labelNames = ['provider', 'model', 'error_type'];

/** The same metrics twice: prom-client's own instruments on one registry, the batched ones on another. */
function twins() {
  const native = new Registry();
  const batched = new Registry();
  const nativeCounter = new Counter({ name: 'calls_total', help: 'Calls.', labelNames, registers: [native] });
  const nativeHistogram = new Histogram({
    name: 'call_seconds',
    help: 'Call durations.',
    labelNames,
    buckets: BUCKETS,
    registers: [native],
  });
  const counter = batchedCounter({ name: 'calls_total', help: 'Calls.', labelNames, registers: [batched] });
  const histogram = batchedHistogram({
    name: 'call_seconds',
    help: 'Call durations.',
    labelNames,
    buckets: BUCKETS,
    registers: [batched],
  });
  // A series without error_type, and one with it, as the model-call duration has.
  const ok = { provider: 'local', model: 'small' };
  const failed = { provider: 'local', model: 'small', error_type: 'timeout' };
  return {
    native,
    batched,
    count(labels: Record<string, string>, value?: number) {
      nativeCounter.inc(labels, value);
      counter(labels).inc(value);
    },
    observe(labels: Record<string, string>, value: number) {
      nativeHistogram.observe(labels, value);
      histogram(labels).observe(value);
    },
    ok,
    failed,
  };
}

describe('batched metrics', () => {
  it('expose no series before the first count or observation, like prom-client', async () => {
    const metrics = twins();
    expect(await metrics.batched.metrics()).toBe(await metrics.native.metrics());
  });

  it('expose the same counter and histogram text as prom-client, scrape after scrape', async () => {
    const metrics = twins();
    // On a bound, inside, below the first and past the last bound; fractional counts and a 0 increment.
    for (const value of [0.01, 0.05, 0.5, 3, 42, 0.001]) metrics.observe(metrics.ok, value);
    metrics.observe(metrics.failed, 0.2);
    metrics.count(metrics.ok);
    metrics.count(metrics.ok, 0.1);
    metrics.count(metrics.ok, 0.2);
    metrics.count(metrics.failed, 0);
    const first = await metrics.batched.metrics();
    expect(first).toBe(await metrics.native.metrics());
    expect(first).toContain('call_seconds_bucket{le="1",provider="local",model="small"} 4');
    expect(first).toContain('call_seconds_count{provider="local",model="small",error_type="timeout"} 1');
    expect(first).toContain('calls_total{provider="local",model="small",error_type="timeout"} 0');

    // A second scrape right after more traffic shows it, counted once.
    metrics.observe(metrics.ok, 7);
    metrics.count(metrics.ok, 2);
    const second = await metrics.batched.metrics();
    expect(second).toBe(await metrics.native.metrics());
    expect(second).toContain('call_seconds_count{provider="local",model="small"} 7');
    expect(second).toContain('calls_total{provider="local",model="small"} 3.3');
  });

  it('give two callers asking for the same labels one series, and ignore values that cannot be exposed', async () => {
    const registry = new Registry();
    const counter = batchedCounter({
      name: 'tools_total',
      help: 'Tools.',
      labelNames: ['tool'],
      registers: [registry],
    });
    const histogram = batchedHistogram({
      name: 'tool_seconds',
      help: 'Tool durations.',
      labelNames: ['tool'],
      buckets: BUCKETS,
      registers: [registry],
    });
    counter({ tool: 'clock' }).inc();
    counter({ tool: 'clock' }).inc();
    counter({ tool: 'clock' }).inc(Number.NaN);
    counter({ tool: 'clock' }).inc(-1);
    histogram({ tool: 'clock' }).observe(0.5);
    histogram({ tool: 'clock' }).observe(Number.POSITIVE_INFINITY);
    const text = await registry.metrics();
    expect(text).toContain('tools_total{tool="clock"} 2\n');
    expect(text).toContain('tool_seconds_count{tool="clock"} 1\n');
    expect(text.match(/tool_seconds_sum/g)).toHaveLength(1);
  });
});
