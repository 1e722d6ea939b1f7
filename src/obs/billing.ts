// Billing from recorded token usage. The recorder's buffer (the current run's unflushed calls) is flushed before
// every read, so each call is counted exactly once: in-memory data and stored history are the same table.
import type { SqliteDatabase } from '../store/index.js';
import { round } from './evidence/read.js';
import { cacheSavingsUsd, type PriceLookup } from './pricing.js';

export interface BillingTotals {
  totalCost: number;
  totalTokens: number;
  callCount: number;
  /** Estimated USD saved by prompt-cache reads (catalogue input price minus cache-read price). */
  totalCacheSaved: number;
}

export interface ProviderBilling {
  provider: string;
  inputTokens: number;
  outputTokens: number;
  estimatedCostUsd: number;
}

export interface Billing {
  total(filter: { sinceMs?: number }): Promise<BillingTotals>;
  byAgent(agentId: string, filter: { sinceMs?: number }): Promise<BillingTotals>;
  bySession(sessionKey: string, filter: { sinceMs?: number }): Promise<BillingTotals>;
  byProvider(filter: { sinceMs?: number }): Promise<{ providers: ProviderBilling[] }>;
  /** Tokens per UTC hour of day (0-23) over the last 24 hours; always 24 entries, hour 0 first. */
  usage24h(): Promise<{ hour: number; tokens: number }[]>;
  reset(): Promise<number>;
}

export interface BillingDeps {
  db: SqliteDatabase;
  /** The recorder's flush: writes the buffered usage rows of the current run. */
  flush: () => Promise<void>;
  now: () => number;
  priceOf?: PriceLookup;
}

interface GroupRow {
  provider: string;
  model: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cost_usd: number;
}

const HOUR_MS = 3_600_000;

export function createBilling({ db, flush, now, priceOf }: BillingDeps): Billing {
  const deleteAll = db.prepare('DELETE FROM token_usage');
  const hourly = db.prepare<[number, number], { hour: number; tokens: number }>(
    `SELECT CAST((ts / ${HOUR_MS}) % 24 AS INTEGER) AS hour, SUM(input_tokens + output_tokens) AS tokens
     FROM token_usage WHERE ts > ? AND ts <= ? GROUP BY hour`);

  async function groups(column: 'agent_id' | 'session_key' | undefined, value: string | undefined, sinceMs: number | undefined): Promise<GroupRow[]> {
    const clauses = ['ts >= ?'];
    const values: (string | number)[] = [sinceMs ?? 0];
    if (column !== undefined && value !== undefined) {
      clauses.push(`${column} = ?`);
      values.push(value);
    }
    await flush();
    return db.prepare<(string | number)[], GroupRow>(
      `SELECT provider, model, COUNT(*) AS calls, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
         SUM(cache_read_tokens) AS cache_read_tokens, SUM(cost_usd) AS cost_usd
       FROM token_usage WHERE ${clauses.join(' AND ')} GROUP BY provider, model ORDER BY provider, model`).all(...values);
  }

  function totals(rows: readonly GroupRow[]): BillingTotals {
    let totalCost = 0;
    let totalTokens = 0;
    let callCount = 0;
    let saved = 0;
    for (const row of rows) {
      totalCost += row.cost_usd;
      totalTokens += row.input_tokens + row.output_tokens;
      callCount += row.calls;
      saved += cacheSavingsUsd(priceOf?.(row.provider, row.model), row.cache_read_tokens);
    }
    return { totalCost: round(totalCost, 6), totalTokens, callCount, totalCacheSaved: round(saved, 6) };
  }

  return {
    total: async ({ sinceMs }) => totals(await groups(undefined, undefined, sinceMs)),
    byAgent: async (agentId, { sinceMs }) => totals(await groups('agent_id', agentId, sinceMs)),
    bySession: async (sessionKey, { sinceMs }) => totals(await groups('session_key', sessionKey, sinceMs)),
    async byProvider({ sinceMs }) {
      const byName = new Map<string, ProviderBilling>();
      for (const row of await groups(undefined, undefined, sinceMs)) {
        const entry = byName.get(row.provider) ?? { provider: row.provider, inputTokens: 0, outputTokens: 0, estimatedCostUsd: 0 };
        entry.inputTokens += row.input_tokens;
        entry.outputTokens += row.output_tokens;
        entry.estimatedCostUsd = round(entry.estimatedCostUsd + row.cost_usd, 6);
        byName.set(row.provider, entry);
      }
      return { providers: [...byName.values()] };
    },
    async usage24h() {
      await flush();
      const at = now();
      const byHour = new Map(hourly.all(at - 24 * HOUR_MS, at).map((row) => [row.hour, row.tokens]));
      return Array.from({ length: 24 }, (_, hour) => ({ hour, tokens: byHour.get(hour) ?? 0 }));
    },
    async reset() {
      await flush();
      return deleteAll.run().changes;
    },
  };
}
