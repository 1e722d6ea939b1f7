// memory.* methods (catalogue "memory, models, tokens"): thin adapters from params to the memory port and search.
import { z } from 'zod';
import { findForbiddenKey, safeKeySchema } from '../config/index.js';
import { forbiddenKey, notFound } from '../errors.js';
import { defineMethod, noParams } from '../rpc/index.js';
import type { MemoryPort } from '../store/index.js';
import { DEFAULT_TENANT, sessionCallerOf } from '../sessions/index.js';
import { callerScope, type ReaderGrants } from './reader-scope.js';
import { entryView } from './entry-view.js';
import type { MemorySearch } from './memory-search.js';
import type { MemoryStatsReader } from './memory-stats.js';
import type { MemoryWriter } from './memory-writer.js';
import type { TrustPolicy } from './trust.js';
import { MEMORY_CONTENT_MAX_CHARS } from './tools.js';

/** memory.search results per call (spec REST limit 1-100, default 10; the method follows it). */
export const MEMORY_SEARCH_LIMIT_DEFAULT = 10;
export const MEMORY_SEARCH_LIMIT_MAX = 100;
/** memory.browse page size: default and maximum. */
export const MEMORY_BROWSE_LIMIT_DEFAULT = 50;
export const MEMORY_BROWSE_LIMIT_MAX = 500;
/** memory.export reads the store in pages of this many entries. */
export const MEMORY_EXPORT_PAGE = 500;
export const MEMORY_QUERY_MAX_CHARS = 1_000;

export interface MemoryMethodsDeps {
  port: MemoryPort;
  search: MemorySearch;
  write: MemoryWriter;
  /** Which tenants each token is given: an rpc caller reads its own memories and all of its tenants'. */
  grants: ReaderGrants;
  trust: Pick<TrustPolicy, 'forOperator' | 'stored'>;
  stats: MemoryStatsReader;
  /** The agent memory.store files operator entries under. */
  defaultAgentId: () => string;
  now: () => number;
}

const memoryNotFound = (id: string) => notFound(`Memory not found: ${id}`, { param: 'id' });
const memoryId = z.string().min(1).max(256);
const metadataSchema = z.record(safeKeySchema, z.unknown());

export const searchLimitSchema = z.number().int().min(1).max(MEMORY_SEARCH_LIMIT_MAX);

export function memoryMethods(deps: MemoryMethodsDeps) {
  const { port, search, grants, stats } = deps;

  return [
    defineMethod({
      name: 'memory.search',
      scope: 'rpc',
      summary:
        "Hybrid search (full-text and vector lanes fused by reciprocal rank) over the memories the caller reads: its token's own and every " +
        `entry of the tenants config gives the token (every memory for admin); ` +
        `{ results: MemoryEntry[] } best first, each with its fused score 0-1; limit 1-${MEMORY_SEARCH_LIMIT_MAX}, default ${MEMORY_SEARCH_LIMIT_DEFAULT}.`,
      params: z.strictObject({
        query: z.string().trim().min(1).max(MEMORY_QUERY_MAX_CHARS),
        limit: searchLimitSchema.optional(),
      }),
      async handler({ query, limit }, ctx) {
        const scope = callerScope(sessionCallerOf(ctx.caller), grants);
        const { hits } = await search({
          query,
          filter: scope,
          limit: limit ?? MEMORY_SEARCH_LIMIT_DEFAULT,
          signal: ctx.signal,
          // The caller's token pays the query's embedding, in the default tenant as /v1/embeddings does.
          payer: { tokenId: ctx.caller.clientId, tenantId: DEFAULT_TENANT },
        });
        return { results: hits.map(({ entry, score }) => entryView(entry, score)) };
      },
    }),
    defineMethod({
      name: 'memory.inspect',
      scope: 'rpc',
      summary:
        '{ entry } for an id, else { stats } of the memories the caller reads (of tenantId alone when given). An rpc caller reads its ' +
        "token's own memories and every entry of the tenants config gives the token; any other id answers not_found, a tenantId " +
        "other than 'default' or those tenants forbidden.",
      params: z.strictObject({ id: memoryId.optional(), tenantId: z.string().min(1).max(128).optional() }),
      async handler({ id, tenantId }, ctx) {
        const scope = callerScope(sessionCallerOf(ctx.caller), grants, tenantId);
        if (id === undefined) return { stats: await stats(scope) };
        const entry = await port.get(id, scope);
        if (entry === undefined) throw memoryNotFound(id);
        return { entry: entryView(entry) };
      },
    }),
    defineMethod({
      name: 'memory.browse',
      scope: 'admin',
      summary: `Every tenant's memories, newest first: { entries, total, offset, limit }; limit 1-${MEMORY_BROWSE_LIMIT_MAX}, default ${MEMORY_BROWSE_LIMIT_DEFAULT}.`,
      params: z.strictObject({
        offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
        limit: z.number().int().min(1).max(MEMORY_BROWSE_LIMIT_MAX).optional(),
      }),
      async handler({ offset = 0, limit = MEMORY_BROWSE_LIMIT_DEFAULT }) {
        const page = await port.browse({}, { offset, limit });
        return { entries: page.entries.map((entry) => entryView(entry)), total: page.total, offset, limit };
      },
    }),
    defineMethod({
      name: 'memory.delete',
      scope: 'admin',
      summary:
        'Deletes one memory entry (unlinked from observations derived from it): { id, deleted: true }; unknown id not_found.',
      params: z.strictObject({ id: memoryId }),
      async handler({ id }) {
        if (!(await port.delete(id, {}))) throw memoryNotFound(id);
        return { id, deleted: true };
      },
    }),
    defineMethod({
      name: 'memory.embeddingCache',
      scope: 'admin',
      summary: 'The persistent embedding cache (model + content hash): { size, hits, misses, hitRate, evictions }.',
      params: noParams,
      async handler() {
        const cache = await port.embeddingCacheStats();
        return {
          size: cache.entries,
          hits: cache.hits,
          misses: cache.misses,
          hitRate: cache.hitRate,
          evictions: cache.evictions,
        };
      },
    }),
    defineMethod({
      name: 'memory.export',
      scope: 'admin',
      summary: 'Every memory entry of every tenant, newest first: { entries, exportedAt (ISO 8601), totalEntries }.',
      params: noParams,
      async handler(_params, ctx) {
        const exportedAt = new Date(deps.now()).toISOString();
        const entries = [];
        for (let offset = 0; ; offset += MEMORY_EXPORT_PAGE) {
          ctx.signal.throwIfAborted();
          const page = await port.browse({}, { offset, limit: MEMORY_EXPORT_PAGE });
          entries.push(...page.entries.map((entry) => entryView(entry)));
          if (page.entries.length < MEMORY_EXPORT_PAGE) break;
        }
        return { entries, exportedAt, totalEntries: entries.length };
      },
    }),
    defineMethod({
      name: 'memory.flush',
      scope: 'admin',
      summary: 'Irreversibly deletes every memory entry of every tenant (audited): { flushed: true, deletedCount }.',
      policy: { audit: true },
      handler: async () => ({ flushed: true, deletedCount: await port.flush({}) }),
      params: noParams,
    }),
    defineMethod({
      name: 'memory.stats',
      scope: 'admin',
      summary:
        'All tenants: { totalEntries, dbSizeBytes, embeddingProvider (the embedder in use), cacheHitRate, byType, untrusted, demoted, vectorsByModel }.',
      params: noParams,
      handler: () => stats({}),
    }),
    defineMethod({
      name: 'memory.store',
      scope: 'admin',
      summary: `Stores an operator's memory (tenant 'default', the default agent, type fact): { id }; content up to ${MEMORY_CONTENT_MAX_CHARS} characters.`,
      params: z.strictObject({
        content: z.string().trim().min(1).max(MEMORY_CONTENT_MAX_CHARS),
        metadata: metadataSchema.optional(),
      }),
      async handler({ content, metadata = {} }, ctx) {
        const found = findForbiddenKey(metadata);
        if (found !== undefined) throw forbiddenKey('metadata', found.key);
        const agentId = deps.defaultAgentId();
        const decision = deps.trust.forOperator();
        const entry = await deps.write(
          {
            tenantId: DEFAULT_TENANT,
            agentId,
            content,
            memoryType: 'fact',
            trustLevel: decision.trustLevel,
            sourceSessionKey: null,
            ownerId: null,
            metadata,
          },
          ctx.signal,
          { tokenId: ctx.caller.clientId, tenantId: DEFAULT_TENANT, agentId },
        );
        deps.trust.stored(entry, decision);
        return { id: entry.id };
      },
    }),
  ];
}
