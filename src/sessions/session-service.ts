// The session service behind the session.* methods: turns on string keys, transcripts, resets, compaction, runs.
import type { Logger } from 'pino';
import type { AgentRegistry, TurnRunner } from '../agents/types.js';
import { notFound } from '../errors.js';
import type { EventBus } from '../obs/event-bus.js';
import type { ModelRouter } from '../providers/types.js';
import { summariseTranscript, type CompactionResult } from './compaction.js';
import type { SessionCaller } from './session-access.js';
import { deriveSessionKind, parseSessionKey } from './session-key.js';
import { createLocalInstances, createSessionLocks, type Instances, type SessionLocks } from '../coordination/index.js';
import { readSessionUsage, trackSessionUsage } from './session-usage.js';
import { createSubAgentRuns, type Notify, type RunStatusView, type SpawnResult } from './sub-agent-runs.js';
import type {
  HistoryMessage,
  ResetConversationResult,
  RuntimeSessions,
  SendResult,
  SessionExport,
  SessionListEntry,
  SessionMemory,
  SessionStatus,
  SessionTranscript,
} from './session-views.js';
import type { RunStore, SessionKind, SessionRecord, SessionSearchHit, SessionStore } from './types.js';

export interface SessionServiceOptions {
  /** Messages session.compact keeps verbatim at the end of the transcript. Default 6. */
  compactKeepRecent?: number;
  /** Spawned runs in flight at once in this process. Default 16. */
  maxRunningSpawns?: number;
  /** How often this instance heartbeats its running sub-agent runs, in milliseconds. Default 30 s. */
  runHeartbeatMs?: number;
}

const DEFAULT_RUN_HEARTBEAT_MS = 30_000;

export interface SessionServiceDeps {
  store: SessionStore;
  runs: RunStore;
  runner: TurnRunner;
  router?: ModelRouter;
  agents?: AgentRegistry;
  memory?: SessionMemory;
  runtime?: RuntimeSessions;
  /** Shared with every other surface that runs turns; a private one is made when absent. */
  locks?: SessionLocks;
  /** Whose runs are alive; a single-process one (only this process alive) is made when absent. */
  instances?: Instances;
  events: EventBus;
  notify: Notify;
  now: () => number;
  newId: () => string;
  log: Logger;
  options?: SessionServiceOptions;
}

export interface SessionService {
  /** A new key creates the session for `caller`; an existing one must be theirs unless they are admin. */
  send(input: { key: string; message: string; agentId?: string; caller: SessionCaller; signal: AbortSignal }): Promise<SendResult>;
  /** Returns at once; the turn runs in the background and ends with a session.completed notification. */
  spawn(input: { parentKey: string; task: string; agentId?: string; caller: SessionCaller }): Promise<SpawnResult>;
  /** `requestedBy`: only that client's runs are visible (others read as not found); omitted for admins. */
  runStatus(runId: string, requestedBy?: string): Promise<RunStatusView>;
  /** The newest session `clientId` owns (on `channelId` when given), oldest message first; empty when it has none. */
  history(input: { clientId: string; channelId?: string }): Promise<HistoryMessage[]>;
  /** `ownedBy`: only that client's sessions are searched; omitted for admins. */
  search(query: string, limit: number, ownedBy?: string): Promise<SessionSearchHit[]>;
  list(filter: { kind?: SessionKind | 'all'; sinceMinutes?: number }): Promise<SessionListEntry[]>;
  deleteSession(sessionKey: string): Promise<{ sessionKey: string; deleted: true; transcript: SessionTranscript }>;
  reset(sessionKey: string): Promise<{ sessionKey: string; reset: true; previousMessageCount: number }>;
  exportSession(sessionKey: string): Promise<SessionExport>;
  compact(sessionKey: string, signal: AbortSignal): Promise<CompactionResult>;
  resetConversation(input: { sessionKey: string; memory: boolean; purgeDerived: boolean }): Promise<ResetConversationResult>;
  /** The caller's newest session (see history) with its agent's model and limits; zeros when it has none. */
  status(clientId: string): Promise<SessionStatus>;
  /** Called once at startup: runs left `running` by a previous process become `orphaned`. */
  recoverOrphanedRuns(): Promise<number>;
  whenIdle(): Promise<void>;
  close(): Promise<void>;
}

export function createSessionService(deps: SessionServiceDeps): SessionService {
  const { store, agents, events, now, log } = deps;
  const locks = deps.locks ?? createSessionLocks();
  const runner = trackSessionUsage(deps.runner, { store, now });
  const keepRecent = deps.options?.compactKeepRecent ?? 6;

  async function requireSession(sessionKey: string): Promise<SessionRecord> {
    const session = await store.get(sessionKey);
    if (session === undefined) throw notFound(`Session not found: ${sessionKey}`, { param: 'session_key' });
    return session;
  }

  function resolveAgentId(agentId: string | undefined, session: SessionRecord | undefined): string {
    if (agentId !== undefined) {
      if (agents !== undefined && agents.get(agentId) === undefined) throw notFound(`Unknown agent: ${agentId}`, { param: 'agentId' });
      return agentId;
    }
    return session?.agentId ?? agents?.defaultAgentId() ?? 'default';
  }

  async function ensureSession({ sessionKey, agentId, metadata, ownerId }: { sessionKey: string; agentId: string; metadata: Record<string, unknown>; ownerId: string }) {
    const parts = parseSessionKey(sessionKey, 'sessionKey');
    const { session, created } = await store.ensure({
      sessionKey,
      agentId,
      tenantId: parts.tenantId,
      kind: deriveSessionKind(parts, metadata),
      createdAt: now(),
      metadata,
      ownerId,
    });
    if (created) events.emit('session:created', { sessionKey, agentId, kind: session.kind });
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
    return (await store.list({ ownedBy: clientId })).find((session) => (channelId === undefined ? session.kind !== 'sub-agent' : session.sessionKey.split(':')[2] === channelId));
  }

  const subAgents = createSubAgentRuns({
    store,
    runs: deps.runs,
    runner,
    locks,
    events,
    notify: deps.notify,
    now,
    newId: deps.newId,
    log,
    ensureSession,
    resolveAgentId,
    maxRunningSpawns: deps.options?.maxRunningSpawns ?? 16,
    instances: deps.instances ?? createLocalInstances(),
    runHeartbeatMs: deps.options?.runHeartbeatMs ?? DEFAULT_RUN_HEARTBEAT_MS,
  });

  return {
    async send({ key, message, agentId, caller, signal }) {
      parseSessionKey(key, 'key');
      return locks.run(key, async () => {
        const existing = await store.get(key);
        const resolvedAgentId = resolveAgentId(agentId, existing);
        // An existing session is checked by the turn itself, before it writes anything.
        if (existing === undefined) {
          await ensureSession({ sessionKey: key, agentId: resolvedAgentId, metadata: { requestedBy: caller.clientId }, ownerId: caller.clientId });
        }
        const result = await runner.run({ agentId: resolvedAgentId, sessionKey: key, message, caller, signal });
        return {
          sessionKey: key,
          agentId: result.agentId,
          response: result.response,
          tokensUsed: result.tokensUsed,
          finishReason: result.finishReason,
        };
      });
    },
    spawn: (input) => subAgents.spawn(input),
    runStatus: (runId, requestedBy) => subAgents.runStatus(runId, requestedBy),
    async history({ clientId, channelId }) {
      const session = await callerSession(clientId, channelId);
      if (session === undefined) return [];
      return (await store.history(session.sessionKey)).map((message) => ({ role: message.role, content: message.content, timestamp: message.timestamp }));
    },
    search: (query, limit, ownedBy) => store.search(query, limit, ownedBy),
    async list({ kind, sinceMinutes }) {
      const sessions = await store.list({
        ...(kind === undefined || kind === 'all' ? {} : { kind }),
        ...(sinceMinutes === undefined ? {} : { updatedSince: now() - sinceMinutes * 60_000 }),
      });
      return sessions.map((session) => ({
        sessionKey: session.sessionKey,
        agentId: session.agentId,
        messageCount: session.messageCount,
        updatedAt: session.updatedAt,
        metadata: session.metadata,
      }));
    },
    deleteSession(sessionKey) {
      return locks.run(sessionKey, async () => {
        const session = await requireSession(sessionKey);
        const transcript: SessionTranscript = { ...(await toExport(session)), agentId: session.agentId, kind: session.kind };
        await store.delete(sessionKey);
        await destroyRuntime(sessionKey);
        return { sessionKey, deleted: true as const, transcript };
      });
    },
    reset(sessionKey) {
      return locks.run(sessionKey, async () => {
        await requireSession(sessionKey);
        const previousMessageCount = await store.clearMessages(sessionKey, now());
        await store.clearApprovalDecisions(sessionKey);
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
      const parts = parseSessionKey(sessionKey, 'session_key');
      return locks.run(sessionKey, async () => {
        const session = await store.get(sessionKey);
        const result: ResetConversationResult = {
          sessionKey,
          lcdRowsDeleted: await store.clearMessages(sessionKey, now()),
          sessionMessagesCleared: session?.messageCount ?? 0,
        };
        await store.clearApprovalDecisions(sessionKey);
        if (deps.runtime !== undefined) result.runtimeSessionDestroyed = await destroyRuntime(sessionKey);
        if (memory && deps.memory !== undefined) {
          result.memoriesDeleted = await deleteMemories(deps.memory, sessionKey, {
            agentId: session?.agentId ?? resolveAgentId(undefined, undefined),
            tenantId: parts.tenantId,
            purgeDerived,
          });
        }
        return result;
      });
    },
    async status(clientId) {
      const session = await callerSession(clientId);
      const agentId = session?.agentId ?? agents?.defaultAgentId();
      const agent = agentId === undefined ? undefined : agents?.get(agentId)?.config;
      const usage = readSessionUsage(session?.metadata ?? {});
      let model: string | null = null;
      if (agent?.model !== undefined) model = agent.provider === undefined ? agent.model : `${agent.provider}/${agent.model}`;
      return {
        model,
        agentName: agent?.name ?? agentId ?? null,
        tokensUsed: { totalTokens: usage.totalTokens, totalCost: usage.totalCost },
        stepsExecuted: usage.stepsExecuted,
        maxSteps: agent?.maxSteps ?? null,
      };
    },
    recoverOrphanedRuns: async () => subAgents.recoverOrphanedRuns(),
    whenIdle: () => subAgents.whenIdle(),
    close: () => subAgents.close(),
  };

  async function destroyRuntime(sessionKey: string): Promise<boolean> {
    if (deps.runtime === undefined) return false;
    try {
      return await deps.runtime.destroy(sessionKey);
    } catch (error) {
      log.warn({ err: error, sessionKey }, 'could not destroy the runtime session');
      return false;
    }
  }

  async function deleteMemories(
    memoryStore: SessionMemory,
    sessionKey: string,
    options: { agentId: string; tenantId: string; purgeDerived: boolean },
  ): Promise<number> {
    try {
      return await memoryStore.deleteBySession(sessionKey, options);
    } catch (error) {
      // Spec rule 5: the other resets stand and the response reports 0.
      log.warn({ err: error, sessionKey }, 'could not delete the memories of a reset conversation');
      return 0;
    }
  }
}
