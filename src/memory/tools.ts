// The agent tools memory_search and memory_store: scoped to the turn's tenant (from its session key), agent and session owner.
import { z } from 'zod';
import { defineTool, type ToolContext, type ToolDefinition } from '../agents/index.js';
import type { MemoryConfig } from '../config/index.js';
import { GatewayError } from '../errors.js';
import { MEMORY_TYPES } from '../store/index.js';
import { parseSessionKey } from '../sessions/index.js';
import type { EmbedPayer } from './memory-embedder.js';
import type { MemorySearch } from './memory-search.js';
import type { InjectionMonitor } from './injection-monitor.js';
import { ownerScope, type ReaderGrants } from './reader-scope.js';
import type { MemoryWriter } from './memory-writer.js';
import type { TrustPolicy } from './trust.js';

/** Results a memory_search call returns at most, and by default. */
export const TOOL_SEARCH_LIMIT_MAX = 20;
export const TOOL_SEARCH_LIMIT_DEFAULT = 5;
/** Characters one stored memory may have. */
export const MEMORY_CONTENT_MAX_CHARS = 8_000;

export interface MemoryToolsDeps {
  search: MemorySearch;
  write: MemoryWriter;
  trust: Pick<TrustPolicy, 'forAgent' | 'stored'>;
  /** Scans what the agent stores: a stored instruction would come back in every later turn's recall. */
  injection: Pick<InjectionMonitor, 'inspect'>;
  config: () => MemoryConfig;
  grants: ReaderGrants;
}

/** Who pays a tool's embedding: the turn's payer, as for its model calls (the caller's token, the key's tenant, the agent). */
const turnPayer = (ctx: ToolContext, tenantId: string): EmbedPayer => ({
  tokenId: ctx.caller.clientId,
  tenantId,
  agentId: ctx.agentId,
});

const memoryDisabled = () => new GatewayError('unavailable', 'Memory is disabled (memory.enabled: false)');

/** Entries an agent stores itself; `observation` is for derived (consolidated) entries only. */
const agentMemoryTypes = MEMORY_TYPES.filter((type) => type !== 'observation');

export function memoryTools({ search, write, trust, injection, config, grants }: MemoryToolsDeps): ToolDefinition[] {
  return [
    defineTool({
      name: 'memory_search',
      description:
        'Searches what this agent remembers (facts, preferences, earlier episodes) for a query; best match first.',
      input: z.strictObject({
        query: z.string().min(1).max(1_000),
        limit: z.number().int().min(1).max(TOOL_SEARCH_LIMIT_MAX).optional(),
      }),
      async execute({ query, limit }, ctx) {
        if (!config().enabled) throw memoryDisabled();
        const { tenantId } = parseSessionKey(ctx.sessionKey, 'sessionKey');
        const filter = { tenantId, agentId: ctx.agentId, ...(await ownerScope(ctx.ownerId, grants)) };
        const { hits } = await search({
          query,
          filter,
          limit: limit ?? TOOL_SEARCH_LIMIT_DEFAULT,
          signal: ctx.signal,
          payer: turnPayer(ctx, tenantId),
        });
        return {
          results: hits.map(({ entry, score }) => ({
            id: entry.id,
            content: entry.content,
            score,
            memoryType: entry.memoryType,
            trustLevel: entry.trustLevel,
          })),
        };
      },
    }),
    defineTool({
      name: 'memory_store',
      description: 'Remembers one fact, preference, episode or instruction for later conversations with this agent.',
      input: z.strictObject({
        content: z.string().trim().min(1).max(MEMORY_CONTENT_MAX_CHARS),
        memoryType: z.enum(agentMemoryTypes).optional(),
      }),
      async execute({ content, memoryType }, ctx) {
        if (!config().enabled) throw memoryDisabled();
        const { tenantId } = parseSessionKey(ctx.sessionKey, 'sessionKey');
        const decision = trust.forAgent({ sessionKey: ctx.sessionKey, clientId: ctx.caller.clientId });
        injection.inspect(content, { agentId: ctx.agentId, sessionKey: ctx.sessionKey, source: 'memory_store' });
        const entry = await write(
          {
            tenantId,
            agentId: ctx.agentId,
            content,
            memoryType: memoryType ?? 'fact',
            trustLevel: decision.trustLevel,
            sourceSessionKey: ctx.sessionKey,
            ownerId: ctx.ownerId,
            metadata: {},
          },
          ctx.signal,
          turnPayer(ctx, tenantId),
        );
        trust.stored(entry, decision);
        return { id: entry.id, stored: true };
      },
    }),
  ];
}
