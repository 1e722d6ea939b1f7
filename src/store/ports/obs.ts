// The obs counters port: channel activity, delivery traces, diagnostic events and health signals, appended in batches; queries and resets.

export interface DeliveryRow {
  ts: number;
  channelId: string;
  channelType: string;
  sessionKey: string | null;
  traceId: string | null;
  outcome: 'success' | 'failure';
  latencyMs: number;
  errorKind: string | null;
}

export interface StoredDelivery extends DeliveryRow {
  id: number;
}

export interface DiagnosticRow {
  ts: number;
  category: string;
  kind: string;
  count: number;
  severity: string;
  /** Scrubbed JSON object. */
  data: string;
}

export interface StoredDiagnostic extends DiagnosticRow {
  id: number;
}

export interface HealthSignalRow {
  ts: number;
  kind: string;
  agentId: string | null;
  rootRunId: string | null;
  severity: string;
  /** Scrubbed JSON object. */
  data: string;
}

/** One message on a channel: counters add up, the type is replaced, last activity only moves forward. */
export interface ChannelTouch {
  channelId: string;
  channelType: string;
  ts: number;
  direction: 'sent' | 'received';
}

export interface ChannelActivityRow {
  channelId: string;
  channelType: string;
  lastActiveAt: number;
  messagesSent: number;
  messagesReceived: number;
}

export type ObsWrite =
  | { type: 'channel'; touch: ChannelTouch }
  | { type: 'delivery'; row: DeliveryRow }
  | { type: 'diagnostic'; row: DiagnosticRow }
  | { type: 'health_signal'; row: HealthSignalRow };

/** The tables obs.reset clears through this port. */
export type ObsCounterTable = 'delivery' | 'diagnostics' | 'channels' | 'token_usage';

/** Recorded token usage summed per provider and model. */
export interface UsageGroup {
  provider: string;
  model: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  costUsd: number;
}

/** What spend is grouped by: the agent, the provider and model, or the session owner's token id. */
export type SpendKey = 'agent' | 'model' | 'token';

/** Recorded token usage summed per spend key; `key` is null for usage of sessions without an owner (operator's). */
export interface SpendGroup {
  /** The agent id, `provider/model`, or the owner token id. */
  key: string | null;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** Recorded token usage summed per bucket: `bucket` counts whole `bucketMs` since the window start. */
export interface SpendBucket {
  bucket: number;
  calls: number;
  tokens: number;
  costUsd: number;
}

/** Calls per provider and model that read cached prompt tokens (hits) and that did not (misses). */
export interface CacheGroup {
  provider: string;
  model: string;
  hits: number;
  misses: number;
  cachedTokens: number;
}

export interface ObsPort {
  /** Writes the batch in order, all or nothing. */
  append(batch: readonly ObsWrite[]): Promise<void>;
  /** Newest first (ts, then id, descending). */
  deliveries(
    filter: { sinceMs?: number; channelId?: string; limit: number },
    signal?: AbortSignal,
  ): Promise<StoredDelivery[]>;
  deliveryStats(signal?: AbortSignal): Promise<{ total: number; successes: number; avgLatencyMs: number }>;
  /** Newest first, at most `limit`; totals sum `count` per category and kind over every matching row. */
  diagnostics(
    filter: { category?: string; sinceMs?: number; limit: number },
    signal?: AbortSignal,
  ): Promise<{
    rows: StoredDiagnostic[];
    totals: { category: string; kind: string; total: number }[];
  }>;
  channels(signal?: AbortSignal): Promise<ChannelActivityRow[]>;
  channel(channelId: string, signal?: AbortSignal): Promise<ChannelActivityRow | undefined>;
  /** Token usage since `sinceMs` (inclusive), optionally of one agent or session, ordered by provider and model. */
  usageGroups(
    filter: { sinceMs: number; agentId?: string; sessionKey?: string },
    signal?: AbortSignal,
  ): Promise<UsageGroup[]>;
  /** Input plus output tokens per UTC hour of day (0-23) of the calls in (afterMs, untilMs]; hours without calls are absent. */
  usageByHour(
    window: { afterMs: number; untilMs: number },
    signal?: AbortSignal,
  ): Promise<{ hour: number; tokens: number }[]>;
  cacheGroups(signal?: AbortSignal): Promise<CacheGroup[]>;
  /**
   * Usage of the calls in [sinceMs, untilMs] per key, costliest first (then by key). For 'token' the usage is joined to
   * its session's owner; usage of a deleted or unowned session has key null.
   */
  spendGroups(window: { sinceMs: number; untilMs: number; by: SpendKey }, signal?: AbortSignal): Promise<SpendGroup[]>;
  /** Usage of the calls in [sinceMs, untilMs] per whole `bucketMs` since `sinceMs`, first bucket first; empty ones absent. */
  spendBuckets(
    window: { sinceMs: number; untilMs: number; bucketMs: number },
    signal?: AbortSignal,
  ): Promise<SpendBucket[]>;
  /** Deletes every row of the table; returns how many. */
  reset(table: ObsCounterTable): Promise<number>;
}
