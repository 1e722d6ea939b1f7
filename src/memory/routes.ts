// GET /api/memory/search and /api/memory/stats (spec route table: bearer, rpc scope; q required, limit 1-100 default 10).
import { z } from 'zod';
import type { RouteRegistrar } from '../capability.js';
import { parseRestInput } from '../http/index.js';
import { grantsRest, type RequestAuth } from '../server/index.js';
import { DEFAULT_TENANT, sessionCallerOf } from '../sessions/index.js';
import { callerScope, type ReaderGrants } from './reader-scope.js';
import { entryView } from './entry-view.js';
import type { MemorySearch } from './memory-search.js';
import type { MemoryStatsReader } from './memory-stats.js';
import { MEMORY_QUERY_MAX_CHARS, MEMORY_SEARCH_LIMIT_DEFAULT, MEMORY_SEARCH_LIMIT_MAX } from './methods.js';

export interface MemoryRoutesDeps {
  auth: RequestAuth;
  search: MemorySearch;
  /** Which tenants each token is given: a token reads its own memories and all of its tenants'. */
  grants: ReaderGrants;
  /** The caller's scope's statistics, the same object memory.stats answers. */
  stats: MemoryStatsReader;
}

const between = `must be between 1 and ${MEMORY_SEARCH_LIMIT_MAX}`;
const searchQuery = z.strictObject({
  q: z.string().trim().min(1, 'is required').max(MEMORY_QUERY_MAX_CHARS),
  limit: z.coerce
    .number()
    .int('must be an integer')
    .min(1, between)
    .max(MEMORY_SEARCH_LIMIT_MAX, between)
    .default(MEMORY_SEARCH_LIMIT_DEFAULT),
});

export function memoryRoutes({ auth, search, grants, stats }: MemoryRoutesDeps): RouteRegistrar {
  return function registerMemoryRoutes(scope) {
    const onRequest = auth.require({ grants: grantsRest });
    scope.get('/api/memory/search', { onRequest }, async function memorySearch(request) {
      const { q, limit } = parseRestInput(searchQuery, request.query);
      const caller = auth.callerOf(request);
      const filter = callerScope(sessionCallerOf(caller), grants);
      // The caller's token pays the query's embedding, in the default tenant as /v1/embeddings does.
      const payer = { tokenId: caller.clientId, tenantId: DEFAULT_TENANT };
      const { hits } = await search({ query: q, filter, limit, payer });
      return { results: hits.map(({ entry, score }) => entryView(entry, score)) };
    });
    scope.get('/api/memory/stats', { onRequest }, async function memoryStats(request) {
      return stats(callerScope(sessionCallerOf(auth.callerOf(request)), grants));
    });
  };
}
