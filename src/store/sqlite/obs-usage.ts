// The token-usage queries of the SQLite ObsPort: billing groups, tokens per hour of day, prompt-cache hits.
import type { CacheGroup, ObsPort, UsageGroup } from '../ports/obs.js';
import type { SqliteDatabase } from './database.js';
import { buildWhere } from './where.js';

const HOUR_MS = 3_600_000;

export function createSqliteUsageQueries(
  db: SqliteDatabase,
): Pick<ObsPort, 'usageGroups' | 'usageByHour' | 'cacheGroups'> {
  const hourly = db.prepare<[number, number], { hour: number; tokens: number }>(
    `SELECT CAST((ts / ${HOUR_MS}) % 24 AS INTEGER) AS hour, SUM(input_tokens + output_tokens) AS tokens
     FROM token_usage WHERE ts > ? AND ts <= ? GROUP BY hour`,
  );
  const cache = db.prepare<[], CacheGroup>(
    `SELECT provider, model, SUM(cache_read_tokens > 0) AS hits, SUM(cache_read_tokens = 0) AS misses, SUM(cache_read_tokens) AS cachedTokens
     FROM token_usage GROUP BY provider, model ORDER BY provider, model`,
  );
  return {
    async usageGroups({ sinceMs, agentId, sessionKey }) {
      const where = buildWhere([
        ['ts', '>=', sinceMs],
        ['agent_id', '=', agentId],
        ['session_key', '=', sessionKey],
      ]);
      return db
        .prepare<(string | number)[], UsageGroup>(
          `SELECT provider, model, COUNT(*) AS calls, SUM(input_tokens) AS inputTokens, SUM(output_tokens) AS outputTokens,
           SUM(cache_read_tokens) AS cacheReadTokens, SUM(cost_usd) AS costUsd
         FROM token_usage ${where.sql} GROUP BY provider, model ORDER BY provider, model`,
        )
        .all(...where.values);
    },
    async usageByHour({ afterMs, untilMs }) {
      return hourly.all(afterMs, untilMs);
    },
    async cacheGroups() {
      return cache.all();
    },
  };
}
