// The beforeModel hook: recalls the memories of the turn's tenant and agent that its session's owner reads, for the turn's message, and records counts-only evidence.
import type { BeforeModelInput, ModelContextAddition, TurnHookContext, TurnHooks } from '../turns/types.js';
import type { Logger } from 'pino';
import type { MemoryConfig } from '../config/index.js';
import { TRAJECTORY_KIND, type Recorder } from '../obs/index.js';
import type { MemoryPort } from '../store/index.js';
import type { MemorySearch } from './memory-search.js';
import { selectRecalled } from './recall-context.js';
import type { RecallMarks } from './recall-marks.js';
import { ownerScope, type ReaderGrants } from './reader-scope.js';

/** Turns whose recalled context is kept for their later model steps; the oldest is dropped past it. */
export const RECALL_TURNS_KEPT = 1_024;
/** Characters of the message the recall searches with; a longer message is cut (its head carries the request). */
export const RECALL_QUERY_MAX_CHARS = 2_000;

export interface RecallHookDeps {
  search: MemorySearch;
  port: Pick<MemoryPort, 'hasEntries'>;
  marks: Pick<RecallMarks, 'add'>;
  recorder: Pick<Recorder, 'trajectory'>;
  /** Read per turn, so a config change applies at the next turn. */
  config: () => MemoryConfig;
  /** Whose memories the session's owner (TurnHookContext.ownerId) reads: its own, its tenants', or all for admin. */
  grants: ReaderGrants;
  now: () => number;
  log: Logger;
  /** Told the ids recalled into each turn (learning attributes a failed outcome to them). */
  onRecalled?: (traceId: string, ids: readonly string[]) => void;
}

export type RecallHooks = Pick<TurnHooks, 'beforeModel' | 'afterTurn'>;

/** The user part of a session key, to count recalled entries learned in another user's sessions. */
function userOf(sessionKey: string | null): string | undefined {
  if (sessionKey === null) return undefined;
  return sessionKey.split(':')[1];
}

/**
 * Step 1 searches; later steps of the same turn reuse its result (the addition is per model call), so a turn
 * searches once. Search and evidence are the only work on the turn's path: recall marks are written in batches.
 * An agent with no memories in the owner's scope is not searched at all (no embedding, no lanes, no evidence): there is
 * nothing to recall, and most agents of a chat gateway never store one.
 */
export function createRecallHooks({
  search,
  port,
  marks,
  recorder,
  config,
  grants,
  now,
  log,
  onRecalled,
}: RecallHookDeps): RecallHooks {
  const kept = new Map<string, ModelContextAddition | undefined>();

  async function recall(input: BeforeModelInput, ctx: TurnHookContext): Promise<ModelContextAddition | undefined> {
    const { enabled, recall: options } = config();
    if (!enabled || !options.enabled) return undefined;
    const query = input.message.trim().slice(0, RECALL_QUERY_MAX_CHARS);
    if (query.length === 0) return undefined;
    const { tenantId, userId } = ctx.keyParts;
    // The session's owner, not the caller: an admin continuing a token's session recalls what that token may read.
    const filter = { tenantId, agentId: ctx.agentId, ...(await ownerScope(ctx.ownerId, grants)) };
    if (!(await port.hasEntries(filter))) return undefined;
    // The turn's payer, as its model calls: the caller's token, the key's tenant, the agent.
    const payer = { tokenId: ctx.clientId, tenantId, agentId: ctx.agentId };
    const { hits, lanes } = await search({ query, filter, limit: options.topK, signal: ctx.signal, payer });
    const { chosen, message } = selectRecalled(hits, options, now());
    const crossUserCount = chosen.filter(({ entry }) => {
      const source = userOf(entry.sourceSessionKey);
      return source !== undefined && source !== userId;
    }).length;
    recorder.trajectory({
      sessionKey: ctx.sessionKey,
      traceId: ctx.traceId,
      kind: TRAJECTORY_KIND.recall,
      ts: now(),
      data: {
        lanes,
        candidates: hits.length,
        finalCount: chosen.length,
        rerankerAvailable: false,
        ...(crossUserCount > 0 ? { crossUserCount } : {}),
      },
    });
    if (message === undefined) return undefined;
    const ids = chosen.map(({ entry }) => entry.id);
    marks.add(ids);
    onRecalled?.(ctx.traceId, ids);
    log.debug({ traceId: ctx.traceId, recalled: chosen.length }, 'memories recalled');
    return { source: 'memory', messages: [message] };
  }

  return {
    async beforeModel(input, ctx) {
      if (input.step > 1) return kept.get(ctx.traceId);
      const addition = await recall(input, ctx);
      if (kept.size >= RECALL_TURNS_KEPT) {
        const oldest = kept.keys().next();
        if (oldest.done !== true) kept.delete(oldest.value);
      }
      kept.set(ctx.traceId, addition);
      return addition;
    },
    async afterTurn(_summary, ctx) {
      kept.delete(ctx.traceId);
    },
  };
}
