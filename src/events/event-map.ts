// Every system event the bus carries, by name, with its payload type: counts, ids and enums only, never bodies.
//
// The names are the spec's Events table (gateway-http-ws.md, "Events"); `bus.emit(name, payload)` only compiles
// with the payload declared here. The catalogue's learning:* trajectory events are evidence records, not bus events.

/** Identifies the session an event belongs to. */
type SessionRef = {
  agentId: string;
  sessionKey: string;
};

/** A message event names its channel (the session key's channel part); `channelType` defaults to the channel id. */
type MessageRef = SessionRef & { channelId: string; channelType?: string };

export type AuditEvent = {
  tenantId: string;
  agentId: string | null;
  kind: string;
  classification: string;
  action: string;
  actor: string;
  outcome: string;
  severity: string;
  traceId: string | null;
  refs: Record<string, unknown>;
};

/** A budget's window and what it holds (settled use, live reservations) against its limits, in USD and tokens. */
export type BudgetNoticePayload = {
  budgetId: string;
  scope: string;
  action: 'block' | 'warn';
  windowStart: number;
  windowEnd: number;
  used: { costUsd: number; tokens: number };
  reserved: { costUsd: number; tokens: number };
  limit: { costUsd?: number; tokens?: number };
};

/** Rows deleted per table by obs.reset. */
export type ResetCounts = {
  tokenUsage: number;
  delivery: number;
  diagnostics: number;
  channels: number;
};

/** The observability:metrics payload: this process's totals since it started and a few gauges as they are now. */
export type MetricsSnapshot = {
  uptimeMs: number;
  httpRequests: number;
  turns: number;
  modelCalls: number;
  modelCallFailures: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  toolCalls: number;
  toolFailures: number;
  wsConnections: number;
  sseSubscribers: number;
  /** Providers whose circuit breaker is open or half-open. */
  openBreakers: number;
  rssBytes: number;
  heapUsedBytes: number;
};

export interface EventMap {
  'message:received': MessageRef & { chars: number };
  'message:sent': MessageRef & { traceId: string; chars: number; finishReason: string };
  'message:streaming': SessionRef & { step: number };

  /** Emitted once per session, by TurnService when it creates it. */
  'session:created': SessionRef & { kind: string };
  'session:expired': { sessionKey: string };
  'session:sub_agent_spawned': SessionRef & { runId: string; parentKey: string | null };
  'session:sub_agent_completed': SessionRef & { runId: string; status: string; runtimeMs: number; totalTokens: number };
  'session:sub_agent_archived': { runId: string; sessionKey: string };
  'session:sub_agent_spawn_rejected': { parentKey: string; reason: string; running: number };
  'session:sub_agent_spawn_started': SessionRef & { runId: string; parentKey: string };
  'session:sub_agent_spawn_queued': { runId: string; parentKey: string };
  'session:sub_agent_lifecycle_ended': { runId: string; sessionKey: string; status: string };
  /** run.kill aborted a run tree at once (spec: a kill event distinct from a revoke event); `runs`: live runs aborted. */
  'run:killed': { runId: string; rootRunId: string; runs: number; by: string };
  /** lease.revoke: the tree's live runs stop at their next step boundary. */
  'run:revoked': { runId: string; rootRunId: string; runs: number; by: string };

  /** The audit row as recorded (content-free labels and scrubbed refs), for /api/events subscribers. */
  'audit:event': AuditEvent;
  'security:injection_detected': SessionRef & { patterns: readonly string[]; source: string };
  'security:injection_rate_exceeded': { agentId: string; detections: number; windowMs: number };
  'security:memory_tainted': { agentId: string; entryId: string; source: string };
  /**
   * public_bind_without_tls / terminal_sandbox_none (unsafe config, at start or when a change brings it in), or
   * refused_burst: `source` (`address:<ip>` or `client:<token id>`) was refused `count` times within a window.
   */
  'security:warn': { reason: string; source?: string; count?: number };
  'secret:accessed': { name: string };
  /** secrets.set / secrets.delete changed a value (never in the event). */
  'secret:modified': { name: string; action: 'set' | 'deleted' };

  'skill:executed': { agentId: string; skill: string };
  /** A skill folder that did not load (no agentId) and why: the rule or cap it broke. */
  'skill:rejected': { agentId?: string; skill: string; reason: string };
  'skill:loaded': { skill: string };
  'skill:registry_reset': { count: number };

  /** Every metrics.eventIntervalMs (src/metrics): totals since start and gauges as they are now, for admins. */
  'observability:metrics': MetricsSnapshot;
  'observability:token_usage': SessionRef & {
    provider: string;
    model: string;
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
  };
  'observability:reset': { table: string; rowsDeleted: number | ResetCounts };

  /** `ownerId`: the token whose job fired; /api/events shows the event to it and to admins only. */
  'scheduler:job_started': { jobId: string; jobName: string; agentId: string; runId: string; ownerId: string };
  'scheduler:job_completed': {
    jobId: string;
    jobName: string;
    agentId: string;
    runId: string;
    status: 'ok' | 'error' | 'skipped';
    durationMs: number;
    ownerId: string;
  };
  'scheduler:heartbeat_check': { jobId: string; agentId: string };
  'scheduler:heartbeat_delivered': { jobId: string; agentId: string };
  'scheduler:heartbeat_alert': { jobId: string; agentId: string; reason: string };

  'approval:requested': SessionRef & { requestId: string; toolName: string; argsDigest: string };
  /** `reason`: the operator's, when the decision gave one. */
  'approval:resolved': SessionRef & {
    requestId: string;
    toolName: string;
    approved: boolean;
    resolvedBy: string;
    reason?: string;
  };

  /** `graphId`: the graph's name; `ownerId`: the token that started the run (/api/events shows it to it and admins). */
  'graph:started': { graphId: string; runId: string; name: string; ownerId: string };
  'graph:node_updated': {
    graphId: string;
    nodeId: string;
    status: string;
    runId: string;
    name: string;
    ownerId: string;
  };
  'graph:completed': { graphId: string; status: string; runId: string; name: string; ownerId: string };

  'config:patched': { sections: readonly string[]; sha: string | null };

  'diagnostic:channel_health': { channelId: string; count: number; status?: string };
  /** Cost (USD) and tokens recorded since `sinceMs` (the previous snapshot), every obs.billingSnapshotIntervalMs. */
  'diagnostic:billing_snapshot': { totalCost: number; totalTokens: number; sinceMs: number };

  'model:catalog_loaded': { providers: number; models: number };
  'model:fallback_attempt': { agentId: string; from: string; to: string; errorKind: string };
  'model:fallback_exhausted': { agentId: string; attempts: number };
  'model:auth_cooldown': { provider: string; cooldownMs: number };

  'provider:degraded': { provider: string; failures: number };
  'provider:recovered': { provider: string };

  'agent:hot_added': { agentId: string; change: string };
  'agent:hot_removed': { agentId: string; change: string };

  'channel:registered': { channelId: string; channelType: string };
  'channel:deregistered': { channelId: string };

  /** A model call's reservation reached the budget's warnAtFraction: once per budget per window per process. */
  'budget:warning': BudgetNoticePayload;
  /**
   * A budget at its limit: a call refused before dispatch, or one that reaches it or, under a warn budget, passes it
   * (and runs): once per budget per window per process.
   */
  'budget:exhausted': BudgetNoticePayload;
  /** An error the mask answered as "Internal error": where, the error's class and the trace id, never the message. */
  'system:error': { component: string; errorKind: string; traceId: string | null };
}

export type EventName = keyof EventMap;

/** One event as listeners and /api/events see it: the name narrows the payload. */
export type BusEvent = { [K in EventName]: { name: K; ts: number; payload: EventMap[K] } }[EventName];
