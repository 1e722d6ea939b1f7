// The token-usage queries of the PostgreSQL ObsPort: billing groups, tokens per hour of day, prompt-cache hits.
import type { CacheGroup, ObsPort, UsageGroup } from '../ports/obs.js';
import type { Queryable } from './pool.js';
import { buildWhere, Params } from './where.js';

const HOUR_MS = 3_600_000;

export function createPostgresUsageQueries(
  db: Queryable,
): Pick<ObsPort, 'usageGroups' | 'usageByHour' | 'cacheGroups'> {
  return {
    async usageGroups({ sinceMs, agentId, sessionKey }, signal) {
      signal?.throwIfAborted();
      const params = new Params();
      const where = buildWhere(params, [
        ['ts', '>=', sinceMs],
        ['agent_id', '=', agentId],
        ['session_key', '=', sessionKey],
      ]);
      const result = await db.query<UsageGroup>(
        `SELECT provider, model, COUNT(*) AS calls, SUM(input_tokens) AS "inputTokens", SUM(output_tokens) AS "outputTokens",
           SUM(cache_read_tokens) AS "cacheReadTokens", SUM(cost_usd) AS "costUsd"
         FROM token_usage ${where} GROUP BY provider, model ORDER BY provider, model`,
        params.values,
      );
      return result.rows;
    },
    async usageByHour({ afterMs, untilMs }, signal) {
      signal?.throwIfAborted();
      const result = await db.query<{ hour: number; tokens: number }>(
        `SELECT ((ts / ${HOUR_MS}) % 24)::integer AS hour, SUM(input_tokens + output_tokens) AS tokens
         FROM token_usage WHERE ts > $1 AND ts <= $2 GROUP BY 1 ORDER BY 1`,
        [afterMs, untilMs],
      );
      return result.rows;
    },
    async cacheGroups(signal) {
      signal?.throwIfAborted();
      const result = await db.query<CacheGroup>(
        `SELECT provider, model, COUNT(*) FILTER (WHERE cache_read_tokens > 0) AS hits, COUNT(*) FILTER (WHERE cache_read_tokens = 0) AS misses,
           SUM(cache_read_tokens) AS "cachedTokens"
         FROM token_usage GROUP BY provider, model ORDER BY provider, model`,
      );
      return result.rows;
    },
  };
}
