// The session service behind the session.* methods: turns on string keys, transcripts, resets, compaction, runs.
import type { SessionKeyParts } from './types.js';
import type { Logger } from 'pino';
import { agentModels, type AgentRegistry, type SessionCaller } from '../agents/index.js';
import { sessionNotFound } from '../errors.js';
import { formatModelRef, type ModelRouter } from '../providers/index.js';
import { sessionAgentId } from './session-agent.js';
import { channelOf, parseSessionKey, readSessionKey } from './session-key.js';
import { readSessionUsage } from './session-usage.js';
import type { SessionLocks } from '../coordination/index.js';
import type { MemoryPort, MemoryScope } from '../store/index.js';
import { summariseTranscript, type CompactionResult } from './compaction.js';
import { listSessions } from './session-list.js';
import type {
  HistoryMessage,
  ResetConversationResult,
  SendResult,
  SessionExport,
  SessionListPage,
  SessionListQuery,
  SessionSearchResult,
  SessionStatus,
  SessionTranscript,
} from './session-views.js';
import type { SessionPort, SessionRecord } from './types.js';

/** Messages session.compact keeps verbatim at the end of the transcript. */
export const DEFAULT_COMPACT_KEEP_RECENT = 6;

export interface SessionServiceOptions {
  /** Messages session.compact keeps verbatim at the end of the transcript. Default DEFAULT_COMPACT_KEEP_RECENT. */
  compactKeepRecent?: number;
}

/** The turn session.send runs: on the caller's key, with the agent the session keeps or the caller names. */
export interface SendTurn {
  agentId: string;
  sessionKey: string;
  keyParts: SessionKeyParts;
  message: string;
  caller: SessionCaller;
  signal: AbortSignal;
}

/**
 * What session.send needs of TurnService, declared here rather than imported: turns imports sessions for its key and
 * owner helpers, so sessions imports nothing of turns.
 */
export interface SendTurnRunner {
  run(turn: SendTurn): Promise<Omit<SendResult, 'sessionKey'>>;
}

export interface SessionServiceDeps {
  store: SessionPort;
  /** TurnService: session.send runs its turn through it. */
  turns: SendTurnRunner;
  router?: ModelRouter;
  agents?: AgentRegistry;
  /** The locks TurnService holds, so a reset never interleaves with a live turn on the same session. */
  locks: SessionLocks;
  /** session.reset_conversation's memory layer; without it `memory: true` deletes nothing and reports nothing. */
  memory?: Pick<MemoryPort, 'deleteBySource'>;
  now: () => number;
  log: Logger;
  options?: SessionServiceOptions;
  /** Told the key of each reset session, so modules drop what they cached for it (approvals: its cached denials). */
  onReset?: (sessionKey: string) => void;
}

export interface SessionService {
  /** A new key creates the session for `caller`; an existing one must be theirs unless they are admin. */
  send(input: {
    key: string;
    message: string;
    agentId?: string;
    caller: SessionCaller;
    signal: AbortSignal;
  }): Promise<SendResult>;
  /** The newest session `clientId` owns (on `channelId` when given), oldest message first; empty when it has none. */
  history(input: { clientId: string; channelId?: string }): Promise<HistoryMessage[]>;
  /** `ownedBy`: only that client's sessions are searched; omitted for admins. */
  search(query: string, limit: number, ownedBy?: string): Promise<SessionSearchResult[]>;
  /** One page, newest update first; `nextCursor` continues it (null on the last page). */
  list(filter: SessionListQuery): Promise<SessionListPage>;
  deleteSession(sessionKey: string): Promise<{ sessionKey: string; deleted: true; transcript: SessionTranscript }>;
  reset(sessionKey: string): Promise<{ sessionKey: string; reset: true; previousMessageCount: number }>;
  exportSession(sessionKey: string): Promise<SessionExport>;
  compact(sessionKey: string, signal: AbortSignal): Promise<CompactionResult>;
  resetConversation(input: {
    sessionKey: string;
    memory: boolean;
    purgeDerived: boolean;
  }): Promise<ResetConversationResult>;
  /** The caller's newest session (see history) with its agent's model and limits; zeros when it has none. */
  status(clientId: string): Promise<SessionStatus>;
}

export function createSessionService(deps: SessionServiceDeps): SessionService {
  const { store, agents, locks, now } = deps;
  const keepRecent = deps.options?.compactKeepRecent ?? DEFAULT_COMPACT_KEEP_RECENT;

  async function requireSession(sessionKey: string): Promise<SessionRecord> {
    const session = await store.get(sessionKey);
    if (session === undefined) throw sessionNotFound(sessionKey);
    return session;
  }

  async function toExport(session: SessionRecord): Promise<SessionExport> {
    return {
      sessionKey: session.sessionKey,
      messages: await store.history(session.sessionKey),
      metadata: session.metadata,
      messageCount: session.messageCount,
      createdAt: session.createdAt,
      updatedAt: session.updatedAt,
    };
  }

  /**
   * "The caller's session" (session.status and session.history take no key): the most recently updated session
   * the client owns, never one whose key merely names it. Sub-agent sessions it spawned are skipped unless
   * `channelId` names their channel.
   */
  async function callerSession(clientId: string, channelId?: string): Promise<SessionRecord | undefined> {
    return (await store.list({ ownedBy: clientId })).find((session) =>
      channelId === undefined ? session.kind !== 'sub-agent' : channelOf(session.sessionKey) === channelId,
    );
  }

  return {
    async send({ key, message, agentId, caller, signal }) {
      const parsed = readSessionKey(key, 'key');
      // A session keeps the agent it was created with unless the caller names another.
      const resolvedAgentId = sessionAgentId(agents, agentId, await store.get(key));
      const result = await deps.turns.run({ ...parsed, agentId: resolvedAgentId, message, caller, signal });
      return {
        sessionKey: key,
        agentId: result.agentId,
        response: result.response,
        tokensUsed: result.tokensUsed,
        finishReason: result.finishReason,
      };
    },
    async history({ clientId, channelId }) {
      const session = await callerSession(clientId, channelId);
      if (session === undefined) return [];
      return (await store.history(session.sessionKey)).map((message) => ({
        role: message.role,
        content: message.content,
        timestamp: message.timestamp,
      }));
    },
    async search(query, limit, ownedBy) {
      const hits = await store.search(query, limit, ownedBy);
      // The channel a session talks on: what it recorded, else its key's channel part.
      return hits.map((hit) => ({ ...hit, channelType: hit.channelType ?? channelOf(hit.sessionKey) ?? 'unknown' }));
    },
    list: (query) => listSessions(store, query, now()),
    deleteSession(sessionKey) {
      return locks.run(sessionKey, async () => {
        const session = await requireSession(sessionKey);
        const transcript: SessionTranscript = {
          ...(await toExport(session)),
          agentId: session.agentId,
          kind: session.kind,
        };
        await store.delete(sessionKey);
        return { sessionKey, deleted: true as const, transcript };
      });
    },
    reset(sessionKey) {
      return locks.run(sessionKey, async () => {
        await requireSession(sessionKey);
        const previousMessageCount = await store.clearMessages(sessionKey, now());
        deps.onReset?.(sessionKey);
        return { sessionKey, reset: true as const, previousMessageCount };
      });
    },
    exportSession: async (sessionKey) => toExport(await requireSession(sessionKey)),
    compact(sessionKey, signal) {
      return locks.run(sessionKey, async () => {
        const session = await requireSession(sessionKey);
        const { result, messages } = await summariseTranscript(
          session,
          await store.history(sessionKey),
          keepRecent,
          { router: deps.router, agents },
          signal,
        );
        if (messages !== null) {
          const at = now();
          await store.replaceHistory(sessionKey, messages, at);
          const lastCompaction = { at, summarizedMessages: result.summarizedMessages };
          await store.updateMetadata(sessionKey, { ...session.metadata, lastCompaction }, at);
        }
        return result;
      });
    },
    async resetConversation({ sessionKey, memory, purgeDerived }) {
      // Spec rule 3: best-effort per layer, so an unknown session answers zero counts rather than not_found.
      const { tenantId } = parseSessionKey(sessionKey, 'session_key');
      return locks.run(sessionKey, async () => {
        const session = await store.get(sessionKey);
        const result: ResetConversationResult = {
          sessionKey,
          lcdRowsDeleted: await store.clearMessages(sessionKey, now()),
          sessionMessagesCleared: session?.messageCount ?? 0,
        };
        if (!memory || deps.memory === undefined) return result;
        // Rule 4: the session's agent and tenant; a session already gone leaves the tenant alone as the scope.
        const scope = session === undefined ? { tenantId } : { tenantId, agentId: session.agentId };
        return {
          ...result,
          memoriesDeleted: await deleteMemories(deps.memory, sessionKey, scope, purgeDerived, deps.log),
        };
      });
    },
    async status(clientId) {
      const session = await callerSession(clientId);
      const agentId = session?.agentId ?? agents?.defaultAgentId();
      const agent = agentId === undefined ? undefined : agents?.get(agentId)?.config;
      const usage = readSessionUsage(session?.metadata ?? {});
      return {
        model: agent === undefined ? null : statusModel(agent, deps.router),
        agentName: agent?.name ?? agentId ?? null,
        tokensUsed: { totalTokens: usage.totalTokens, totalCost: usage.totalCost },
        stepsExecuted: usage.stepsExecuted,
        maxSteps: agent?.maxSteps ?? null,
      };
    },
  };
}

/** Rule 5: a failed memory delete leaves the other layers reset and reports 0. */
async function deleteMemories(
  memory: Pick<MemoryPort, 'deleteBySource'>,
  sessionKey: string,
  scope: MemoryScope,
  purgeDerived: boolean,
  log: Logger,
): Promise<number> {
  try {
    return await memory.deleteBySource(sessionKey, scope, { purgeDerived });
  } catch (error) {
    log.error({ err: error, sessionKey }, "session.reset_conversation could not delete the session's memories");
    return 0;
  }
}

/** `<provider>/<modelId>` of the agent's model; a model the catalog cannot resolve is shown as configured. */
function statusModel(agent: Parameters<typeof agentModels>[0], router: ModelRouter | undefined): string | null {
  const primary = router === undefined ? undefined : agentModels(agent, router).primary;
  if (primary !== undefined) return formatModelRef(primary);
  if (agent.model === undefined) return null;
  return agent.provider === undefined ? agent.model : `${agent.provider}/${agent.model}`;
}
