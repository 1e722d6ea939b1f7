// The webhook agent message: JSON.stringify's exact output, built within a character budget that bounds the work.
import { describe, expect, it } from 'vitest';
import { renderJsonWithin, webhookMessage } from '../../src/http/webhook-message.js';

describe('webhook message rendering', () => {
  it('writes exactly what JSON.stringify writes, pretty and compact', () => {
    const values: unknown[] = [
      null,
      0,
      -1.5e-7,
      1e21,
      'text "quoted" \n \u2028 é',
      true,
      [],
      {},
      [[]],
      { a: {} },
      { build: 42, tags: ['x', 'y'], nested: { deep: [1, { k: null }], empty: [] }, __proto__: 1, ключ: 'значение' },
      JSON.parse('[1e400, -0]'),
    ];
    for (const value of values) {
      expect(renderJsonWithin(value, 2, 10_000)).toBe(JSON.stringify(value, null, 2));
      expect(renderJsonWithin(value, 0, 10_000)).toBe(JSON.stringify(value));
    }
  });

  it('gives up once the text would pass the budget, and handles nesting too deep for recursion', () => {
    const value = { list: Array.from({ length: 100 }, (_, index) => index) };
    const exact = JSON.stringify(value, null, 2);
    expect(renderJsonWithin(value, 2, exact.length)).toBe(exact);
    expect(renderJsonWithin(value, 2, exact.length - 1)).toBeUndefined();
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(renderJsonWithin(deep, 0, 1_000_000)).toHaveLength(200_000);
    expect(renderJsonWithin(deep, 2, 1_000_000)).toBeUndefined();
  });

  it('pretty-prints when it fits, falls back to compact JSON, and refuses what fits neither', () => {
    const small = webhookMessage({ event: 'deploy', source: 'ci', data: { build: 42 } }, 1000);
    expect(small).toBe('Webhook event "deploy" from ci.\nData (JSON):\n{\n  "build": 42\n}');
    const wide = { rows: Array.from({ length: 200 }, () => [0, 0]) };
    const compact = webhookMessage({ event: 'rows', data: wide }, 2000);
    expect(compact).toBe(`Webhook event "rows" from an external system.\nData (JSON):\n${JSON.stringify(wide)}`);
    expect(webhookMessage({ event: 'rows', data: wide }, 1000)).toBeUndefined();
    expect(webhookMessage({ event: 'none' }, 1000)).toContain('Data (JSON):\nnull');
  });
});
