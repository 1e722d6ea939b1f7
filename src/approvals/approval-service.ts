// Tool-call approvals: the beforeTool gate that pauses gated calls on a persisted request, and how requests end
// (operator, timeout, the turn ending, a restart), with the denial cache and the denial breaker.
import type { ToolCallInfo, ToolDecision, TurnHookContext } from '../turns/types.js';
import type { EventBus } from '../events/index.js';
import type { Logger } from 'pino';
import type { AgentRegistry } from '../agents/index.js';
import type { ApprovalsConfig } from '../config/index.js';
import type { Instances } from '../coordination/index.js';
import { approvalAlreadyResolved, approvalNotFound } from '../errors.js';
import type { AuditInput } from '../obs/index.js';
import type { ApprovalPort, ApprovalRequestRecord } from '../store/index.js';
import { requiresApproval } from './approval-rules.js';
import { argsDigest } from './args-digest.js';
import { createDenialCounter, type DenialBreaker } from './denial-breaker.js';
import { createDenialCache } from './denial-cache.js';
import { createWaitingLimits } from './waiting-limits.js';

export interface ApprovalServiceDeps {
  port: ApprovalPort;
  events: EventBus;
  audit: { record(input: AuditInput): void };
  agents: AgentRegistry;
  /** Read at each gated call, so config changes apply to the next one. */
  config: () => ApprovalsConfig;
  instances: Instances;
  /** Aborts a run tree once it reaches approvals.denialBreakerThreshold consecutive denials. */
  denialBreaker?: DenialBreaker;
  now: () => number;
  newId: () => string;
  log: Logger;
}

/** An entry of admin.approval.pending: what the operator decides on. */
export interface PendingApproval {
  id: string;
  agentId: string;
  sessionKey: string;
  toolName: string;
  args: unknown;
  argsDigest: string;
  traceId: string;
  rootRunId?: string;
  requestedBy: string;
  requestedAt: number;
  expiresAt: number | null;
}

export interface ApprovalOutcome {
  id: string;
  approved: boolean;
  status: 'approved' | 'denied';
  resolvedBy: string;
  resolvedAt: number;
}

export interface ApprovalService {
  beforeTool(call: ToolCallInfo, ctx: TurnHookContext): Promise<ToolDecision>;
  /**
   * Asks an operator whatever the agent's rules say (a graph's approval node): a pending request that waits like a
   * gated call's, or a denial when too many requests wait already.
   */
  ask(call: ToolCallInfo, ctx: TurnHookContext): Promise<ToolDecision>;
  pending(signal?: AbortSignal): Promise<PendingApproval[]>;
  resolve(id: string, decision: { approved: boolean; resolvedBy: string; reason?: string }): Promise<ApprovalOutcome>;
  resolveAll(decision: {
    approved: boolean;
    resolvedBy: string;
    reason?: string;
    sessionKey?: string;
  }): Promise<{ resolved: number; requestIds: string[] }>;
  /** Drops every cached denial; resolves to how many. */
  clearDenialCache(): number;
  /** Drops the session's cached denials (session.reset). */
  forgetSession(sessionKey: string): number;
  /** Ends as denied the pending requests of instances that are gone: their turns cannot continue. */
  recoverAbandoned(): Promise<number>;
  /** Ends this process's waiting requests as denied (their turns are ending) and clears the timers. */
  close(): Promise<void>;
}

type Cause = 'operator' | 'timeout' | 'cancelled' | 'restart' | 'shutdown';
type Decision = { action: 'allow' } | { action: 'deny'; reason: string };

const SYSTEM_REASON: Record<Exclude<Cause, 'operator' | 'timeout'>, string> = {
  cancelled: 'the turn ended before a decision',
  restart: 'the gateway stopped while the call waited; its turn could not be resumed',
  shutdown: 'the gateway shut down before a decision',
};

interface Waiter {
  settle(decision: Decision): void;
  release(): void;
}

const tenantOf = (sessionKey: string) => sessionKey.split(':', 1)[0] ?? '';

export function createApprovalService(deps: ApprovalServiceDeps): ApprovalService {
  const { port, events, audit, agents, now, log } = deps;
  const waiters = new Map<string, Waiter>();
  const cache = createDenialCache();
  const counter = createDenialCounter();
  const waiting = createWaitingLimits(deps.config);

  /** Counts a denial in the turn's run tree and trips the breaker at the threshold. */
  async function countDenial(rootRunId: string | null, agentId: string): Promise<void> {
    if (rootRunId === null) return;
    const consecutiveDenials = counter.denied(rootRunId, deps.config().denialBreakerThreshold);
    if (consecutiveDenials === undefined) return;
    if (deps.denialBreaker === undefined) {
      log.warn(
        { rootRunId, agentId, consecutiveDenials },
        'denial breaker threshold reached, but no run control is wired to abort the tree',
      );
      return;
    }
    log.warn({ rootRunId, agentId, consecutiveDenials }, 'denial breaker tripped');
    try {
      await deps.denialBreaker.tripDenialBreaker(rootRunId, { agentId, consecutiveDenials });
    } catch (error) {
      log.error({ err: error, rootRunId }, 'denial breaker could not abort the run tree');
    }
  }

  /** Ends a pending request once (the store decides the winner), then tells its turn, the bus and the audit log. */
  async function finish(
    request: ApprovalRequestRecord,
    decision: { approved: boolean; resolvedBy: string; reason: string | null },
    cause: Cause,
  ): Promise<number | undefined> {
    const resolvedAt = now();
    if (!(await port.resolve(request.id, { ...decision, resolvedAt }))) return undefined;
    const { id: requestId, agentId, sessionKey, toolName } = request;
    events.emit('approval:resolved', {
      agentId,
      sessionKey,
      requestId,
      toolName,
      approved: decision.approved,
      resolvedBy: decision.resolvedBy,
      ...(cause !== 'operator' || decision.reason === null ? {} : { reason: decision.reason }),
    });
    audit.record({
      tenantId: tenantOf(sessionKey),
      agentId,
      kind: 'approval',
      classification: 'admin',
      action: 'approval.resolve',
      actor: decision.resolvedBy,
      outcome: decision.approved ? 'approved' : 'denied',
      severity: decision.approved ? 'info' : 'warning',
      traceId: request.traceId,
      refs: { requestId, toolName, argsDigest: request.argsDigest, cause },
    });
    log.info(
      { requestId, toolName, argsDigest: request.argsDigest, approved: decision.approved, cause },
      'approval request resolved',
    );
    const waiter = waiters.get(requestId);
    waiters.delete(requestId);
    waiter?.release();
    if (decision.approved) {
      waiter?.settle({ action: 'allow' });
      if (request.rootRunId !== null) counter.allowed(request.rootRunId);
      return resolvedAt;
    }
    const denial =
      cause === 'operator'
        ? `denied by ${decision.resolvedBy}${decision.reason === null ? '' : `: ${decision.reason}`}`
        : (decision.reason ?? 'denied');
    if (cause === 'operator')
      cache.remember(sessionKey, toolName, request.argsDigest, denial, resolvedAt + deps.config().denialCacheMs);
    waiter?.settle({ action: 'deny', reason: denial });
    if (cause === 'operator' || cause === 'timeout') await countDenial(request.rootRunId, agentId);
    return resolvedAt;
  }

  const endBySystem = (request: ApprovalRequestRecord, cause: Exclude<Cause, 'operator' | 'timeout'>) =>
    finish(request, { approved: false, resolvedBy: `system:${cause}`, reason: SYSTEM_REASON[cause] }, cause);

  function logFailure(requestId: string) {
    return (error: unknown) => log.error({ err: error, requestId }, 'approval request could not be ended');
  }

  async function open(call: ToolCallInfo, ctx: TurnHookContext, digest: string): Promise<ToolDecision> {
    const { timeoutMs } = deps.config();
    const requestedAt = now();
    const request: ApprovalRequestRecord = {
      id: deps.newId(),
      agentId: ctx.agentId,
      sessionKey: ctx.sessionKey,
      toolName: call.toolName,
      args: call.input ?? null,
      argsDigest: digest,
      traceId: ctx.traceId,
      rootRunId: ctx.rootRunId ?? null,
      requestedBy: ctx.clientId,
      ownerInstance: deps.instances.currentId,
      status: 'pending',
      requestedAt,
      expiresAt: timeoutMs === 0 ? null : requestedAt + timeoutMs,
      resolvedAt: null,
      resolvedBy: null,
      reason: null,
    };
    await port.create(request);
    let settle: (decision: Decision) => void = () => {};
    const decision = new Promise<Decision>((resolve) => {
      settle = resolve;
    });
    const cancel = () => endBySystem(request, 'cancelled').catch(logFailure(request.id));
    const onAbort = (): void => {
      cancel().catch(logFailure(request.id));
    };
    // 0 means no deadline: the call waits until an operator decides or the turn ends.
    const timer =
      timeoutMs === 0
        ? undefined
        : setTimeout(() => {
            finish(
              request,
              { approved: false, resolvedBy: 'system:timeout', reason: `no decision within ${timeoutMs} ms` },
              'timeout',
            ).catch(logFailure(request.id));
          }, timeoutMs);
    timer?.unref();
    waiting.add(ctx);
    let isReleased = false;
    waiters.set(request.id, {
      settle,
      release() {
        if (timer !== undefined) clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
        if (isReleased) return;
        isReleased = true;
        waiting.remove(ctx);
      },
    });
    events.emit('approval:requested', {
      agentId: ctx.agentId,
      sessionKey: ctx.sessionKey,
      requestId: request.id,
      toolName: call.toolName,
      argsDigest: digest,
    });
    log.info(
      { requestId: request.id, toolName: call.toolName, argsDigest: digest, traceId: ctx.traceId },
      'tool call waits for approval',
    );
    if (ctx.signal.aborted) await cancel();
    else ctx.signal.addEventListener('abort', onAbort, { once: true });
    return { action: 'wait', decision };
  }

  function toPending(request: ApprovalRequestRecord): PendingApproval {
    return {
      id: request.id,
      agentId: request.agentId,
      sessionKey: request.sessionKey,
      toolName: request.toolName,
      args: request.args,
      argsDigest: request.argsDigest,
      traceId: request.traceId,
      ...(request.rootRunId === null ? {} : { rootRunId: request.rootRunId }),
      requestedBy: request.requestedBy,
      requestedAt: request.requestedAt,
      expiresAt: request.expiresAt,
    };
  }

  return {
    async beforeTool(call, ctx) {
      const rules = agents.get(ctx.agentId)?.config.requireApproval ?? [];
      if (!requiresApproval(rules, call.toolName, call.input)) {
        if (ctx.rootRunId !== undefined) counter.allowed(ctx.rootRunId);
        return { action: 'allow' };
      }
      const digest = argsDigest(call.input);
      const cached = cache.find(ctx.sessionKey, call.toolName, digest, now());
      if (cached !== undefined) {
        await countDenial(ctx.rootRunId ?? null, ctx.agentId);
        return { action: 'deny', reason: `the same call was ${cached} (cached denial)` };
      }
      // Checked before anything is stored: a call past the limit leaves no request and nothing waits.
      const refusal = waiting.overLimit(ctx);
      if (refusal !== undefined) {
        log.warn(
          { toolName: call.toolName, sessionKey: ctx.sessionKey, clientId: ctx.clientId },
          'gated call denied: too many approval requests waiting',
        );
        return { action: 'deny', reason: refusal };
      }
      return open(call, ctx, digest);
    },
    async ask(call, ctx) {
      const refusal = waiting.overLimit(ctx);
      if (refusal !== undefined) return { action: 'deny', reason: refusal };
      return open(call, ctx, argsDigest(call.input));
    },
    async pending(signal) {
      return (await port.listPending({}, signal)).map(toPending);
    },
    async resolve(id, { approved, resolvedBy, reason }) {
      const request = await port.get(id);
      if (request === undefined) throw approvalNotFound(id);
      const resolvedAt =
        request.status === 'pending'
          ? await finish(request, { approved, resolvedBy, reason: reason ?? null }, 'operator')
          : undefined;
      if (resolvedAt === undefined) throw approvalAlreadyResolved(id, (await port.get(id))?.status ?? request.status);
      return { id, approved, status: approved ? 'approved' : 'denied', resolvedBy, resolvedAt };
    },
    async resolveAll({ approved, resolvedBy, reason, sessionKey }) {
      const requestIds: string[] = [];
      for (const request of await port.listPending(sessionKey === undefined ? {} : { sessionKey })) {
        if ((await finish(request, { approved, resolvedBy, reason: reason ?? null }, 'operator')) !== undefined)
          requestIds.push(request.id);
      }
      return { resolved: requestIds.length, requestIds };
    },
    clearDenialCache: () => cache.clear(),
    forgetSession: (sessionKey) => cache.clearSession(sessionKey),
    async recoverAbandoned() {
      let ended = 0;
      for (const request of await port.listPending({})) {
        if (waiters.has(request.id) || (await deps.instances.isAlive(request.ownerInstance))) continue;
        if ((await endBySystem(request, 'restart')) !== undefined) ended += 1;
      }
      if (ended > 0) log.warn({ ended }, 'approval requests of a stopped gateway were denied');
      return ended;
    },
    async close() {
      for (const id of [...waiters.keys()]) {
        const request = await port.get(id);
        if (request !== undefined) await endBySystem(request, 'shutdown');
        waiters.get(id)?.release();
        waiters.delete(id);
      }
    },
  };
}
