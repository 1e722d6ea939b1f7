// TurnService: the one way every surface runs a turn — session lock → ensure session (owner checked) → loop → usage → afterTurn → release; stateless turns run the loop alone.
import type { SessionCaller } from '../agents/types.js';
import type { ParsedSessionKey } from '../sessions/types.js';
import type { EventBus } from '../events/index.js';
import type { Logger } from 'pino';
import { agentModels, type AgentDefinition, type AgentRegistry, type AgentModels } from '../agents/index.js';
import type { SessionLocks } from '../coordination/index.js';
import { agentNotFound, agentSuspended, GatewayError, sessionNotFound } from '../errors.js';
import type { ModelRouter, TranscriptMessage } from '../providers/index.js';
import {
  archiveKeyOf,
  assertKeyAllowed,
  assertSessionAccess,
  deriveSessionKind,
  type KeyGrants,
  type SessionPort,
  type SessionRecord,
} from '../sessions/index.js';
import type { TurnHookRegistry } from './hook-registry.js';
import { hookContextOf } from './hooks.js';
import type { TurnLoop } from './turn-loop.js';
import { recordTurnUsage } from './turn-usage.js';
import type { TurnRequest, TurnResult, TurnRunner } from './types.js';

export interface TurnServiceDeps {
  agents: AgentRegistry;
  /** Resolves the agent's model names: the turn's models are chosen once, here, unless the request brings them. */
  router: Pick<ModelRouter, 'resolve'>;
  store: SessionPort;
  /** Shared with everything else that rewrites a transcript (reset, compaction, delete). */
  locks: SessionLocks;
  loop: TurnLoop;
  hooks: TurnHookRegistry;
  events: EventBus;
  /** Which tenants each token is given and which ids are tokens': the key check of every session a turn opens. */
  grants: KeyGrants;
  now: () => number;
  log: Logger;
}

export interface EnsureSessionInput extends ParsedSessionKey {
  agentId: string;
  /** A new session is owned by `caller.clientId`; an existing one must be theirs unless they are admin. */
  caller: SessionCaller;
  /** Stored with a new session; decides its kind (deriveSessionKind). */
  metadata?: Record<string, unknown>;
  /** The gateway made the key with a fresh id (TurnRequest.isKeyUnique): see assertKeyAllowed. */
  isKeyUnique?: boolean;
}

export interface TurnService extends TurnRunner {
  /**
   * Creates the session when absent (the one place sessions are created, emitting session:created once), or
   * returns the existing one after the owner check. Throws `forbidden` for another client's session, and, before
   * anything is written, for a key in a tenant the caller was not given or naming another token (assertKeyAllowed).
   */
  ensureSession(input: EnsureSessionInput): Promise<{ session: SessionRecord; created: boolean }>;
}

export function createTurnService(deps: TurnServiceDeps): TurnService {
  const { agents, store, locks, loop, hooks, events, now } = deps;

  function resolveAgent(agentId: string | undefined): AgentDefinition {
    const id = agentId ?? agents.defaultAgentId();
    if (id === undefined) {
      throw new GatewayError(
        'unavailable',
        'No agent configured: add one under `agents:` in config.yaml or create one with agents.create',
        { reason: 'no_agent' },
      );
    }
    const agent = agents.get(id);
    if (agent === undefined) throw agentNotFound(id);
    if (agent.status === 'suspended') {
      throw agentSuspended(id, 'agentId', '; resume it with agents.resume');
    }
    return agent;
  }

  async function ensureSession({ metadata = {}, isKeyUnique = false, ...input }: EnsureSessionInput) {
    const { sessionKey, keyParts, agentId, caller } = input;
    await assertKeyAllowed(input, caller, deps.grants, isKeyUnique);
    const ensured = await store.ensure({
      sessionKey,
      agentId,
      tenantId: keyParts.tenantId,
      kind: deriveSessionKind(keyParts, metadata),
      createdAt: now(),
      metadata,
      ownerId: caller.clientId,
    });
    if (ensured.created) events.emit('session:created', { sessionKey, agentId, kind: ensured.session.kind });
    else assertSessionAccess(ensured.session, caller);
    const { expiredAt } = ensured.session;
    if (ensured.created || expiredAt === undefined) return ensured;
    // An expired session starts over on its key (README "Lifecycle events"): the expired conversation moves to its
    // archive key, kept until sessions.expiredRetentionDays, and this turn begins a new one with no history.
    await store.restartExpired(sessionKey, archiveKeyOf(sessionKey, expiredAt), now());
    const restarted = await store.get(sessionKey);
    if (restarted === undefined) throw sessionNotFound(sessionKey, 'sessionKey');
    return { session: restarted, created: false };
  }

  async function runStored(request: TurnRequest, agent: AgentDefinition, models: AgentModels): Promise<TurnResult> {
    const { sessionKey, keyParts, caller } = request;
    // The owner check every turn surface passes, before anything of the turn is written.
    const { created, session } = await ensureSession({
      sessionKey,
      keyParts,
      agentId: agent.id,
      caller,
      isKeyUnique: request.isKeyUnique === true,
    });
    const seed: readonly TranscriptMessage[] = created ? (request.seedHistory ?? []) : [];
    const history = created ? seed : await store.history(sessionKey, request.historyLimit);
    // A session from before owners were recorded is the admins' alone (session-access.ts): the admin caller's own.
    const ownerId = session.ownerId ?? caller.clientId;
    const { result, stored } = await loop.run({ request, agent, models, history, unstored: seed, ownerId });
    // The usage joins the turn's last transcript write in one commit; the answer waits for it, so a client is never
    // answered for a turn a crash could still lose (README, "Storage").
    await Promise.all([stored, recordTurnUsage(store, request, result, now())]);
    return finished(request, agent, result, ownerId);
  }

  /** No lock, no session row: the key is unique by construction and nothing of the turn is stored but its evidence. */
  async function runStateless(request: TurnRequest, agent: AgentDefinition, models: AgentModels): Promise<TurnResult> {
    await assertKeyAllowed(request, request.caller, deps.grants, true);
    const ownerId = request.caller.clientId;
    const { result, stored } = await loop.run({
      request,
      agent,
      models,
      history: request.seedHistory ?? [],
      unstored: [],
      ownerId,
    });
    await stored;
    return finished(request, agent, result, ownerId);
  }

  async function finished(
    request: TurnRequest,
    agent: AgentDefinition,
    result: TurnResult,
    ownerId: string,
  ): Promise<TurnResult> {
    const { finishReason, steps, tokensUsed, costUsd, traceId } = result;
    await hooks.afterTurn(
      { finishReason, steps, tokensUsed, costUsd },
      hookContextOf(request, agent.id, traceId, ownerId),
    );
    return result;
  }

  return {
    ensureSession: (input) => ensureSession(input),
    async run(request) {
      const agent = resolveAgent(request.agentId);
      // Chosen once per turn, here or where the request was read, and carried to every model call of the turn.
      const models = request.models ?? agentModels(agent.config, deps.router);
      if (request.stateless === true) return runStateless(request, agent, models);
      if (request.isKeyUnique === true) return runStored(request, agent, models);
      // A lock lost mid-turn (coordination: redis, not renewed in time) stops the turn like a cancel would; the local
      // locks are never lost, so their turns keep the request's own signal (no combined signal per turn).
      return locks.run(request.sessionKey, (hold) =>
        runStored(
          hold.canBeLost ? { ...request, signal: AbortSignal.any([request.signal, hold.signal]) } : request,
          agent,
          models,
        ),
      );
    },
  };
}
