// docs/grafana-dashboard.json: valid JSON with panels for every area, and every metric its queries name is one a
// started gateway's /metrics declares (a histogram's _bucket, _sum and _count by the histogram's name).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';

const DASHBOARD_PATH = new URL('../../docs/grafana-dashboard.json', import.meta.url);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every string under a `key` field anywhere in `value`. */
function stringsAt(value: unknown, key: string): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => stringsAt(item, key));
  if (!isRecord(value)) return [];
  return Object.entries(value).flatMap(([name, entry]) =>
    name === key && typeof entry === 'string' ? [entry] : stringsAt(entry, key),
  );
}

/** Metric names of a PromQL query: the selectors (`name{…}`) and label_values(name, …). */
function metricsIn(query: string): string[] {
  return [...query.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{|label_values\(([a-zA-Z_:][a-zA-Z0-9_:]*)/g)].map(
    (match) => match[1] ?? match[2] ?? '',
  );
}

describe('docs/grafana-dashboard.json', () => {
  let gateway: Harness;
  let declared: Map<string, string>;

  beforeAll(async () => {
    gateway = await startGateway();
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    declared = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((match) => [match[1] ?? '', match[2] ?? '']));
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const dashboard: unknown = JSON.parse(readFileSync(DASHBOARD_PATH, 'utf8'));

  it('has a panel for requests, latency, turns, tokens, cost, tools, breakers, approvals and connections', () => {
    const titles = stringsAt(isRecord(dashboard) ? dashboard.panels : [], 'title')
      .join('\n')
      .toLowerCase();
    for (const topic of [
      'requests',
      'latency',
      'turns',
      'tokens',
      'cost',
      'tool',
      'breaker',
      'approvals',
      'connections',
    ])
      expect(titles, topic).toContain(topic);
  });

  it('names only metrics that /metrics declares', () => {
    const queries = [...stringsAt(dashboard, 'expr'), ...stringsAt(dashboard, 'definition')];
    expect(queries.length).toBeGreaterThan(25);
    const missing: string[] = [];
    for (const query of queries) {
      const names = metricsIn(query);
      expect(names, query).not.toEqual([]);
      for (const name of names) {
        const histogram = /^(.+)_(bucket|sum|count)$/.exec(name)?.[1];
        const isDeclared = declared.has(name) || (histogram !== undefined && declared.get(histogram) === 'histogram');
        if (!isDeclared) missing.push(name);
      }
    }
    expect(missing).toEqual([]);
  });
});
