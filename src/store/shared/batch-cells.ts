// The cells of the batched evidence and obs writes, in the column order both backends' hand-written INSERTs list them
// (SQLite runs them on its writer thread, PostgreSQL unnests them): each record's values taken once, here.
import type { SessionIndexStart, UsageRecord } from '../ports/evidence.js';
import type { ObsWrite } from '../ports/obs.js';

export type Cell = string | number | null;

/** token_usage: ts, agent_id, session_key, provider, model, input, output, cache read and cache write tokens, cost_usd. */
export const usageCells = (record: UsageRecord): Cell[] => [
  record.ts,
  record.agentId,
  record.sessionKey,
  record.provider,
  record.model,
  record.inputTokens,
  record.outputTokens,
  record.cacheReadTokens,
  record.cacheWriteTokens,
  record.costUsd,
];

const dayOf = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);

/** session_index at a turn's start: trace_id, session_key, agent_id, channel, message_id, root_run_id, started_at, day. */
export const sessionStartCells = (entry: SessionIndexStart): Cell[] => [
  entry.traceId,
  entry.sessionKey,
  entry.agentId,
  entry.channel,
  entry.messageId ?? null,
  entry.rootRunId ?? null,
  entry.startedAt,
  dayOf(entry.startedAt),
];

export interface ObsCells {
  /** delivery_traces: ts, channel_id, channel_type, session_key, trace_id, outcome, latency_ms, error_kind. */
  deliveries: Cell[][];
  /** diagnostic_events: ts, category, kind, count, severity, data. */
  diagnostics: Cell[][];
  /** health_signals: ts, kind, agent_id, root_run_id, severity, data. */
  signals: Cell[][];
  /**
   * channel_activity: channel_id, channel_type, last_active_at, messages sent, messages received; one row per channel
   * (every message touches its channel twice, so touches are added up first), in id order, so two batches never wait
   * on each other's rows in opposite orders.
   */
  channels: Cell[][];
}

export function obsCells(batch: readonly ObsWrite[]): ObsCells {
  const cells: ObsCells = { deliveries: [], diagnostics: [], signals: [], channels: [] };
  const channels = new Map<string, { channelType: string; ts: number; sent: number; received: number }>();
  for (const write of batch) {
    if (write.type === 'channel') {
      const { touch } = write;
      const sum = channels.get(touch.channelId) ?? { channelType: '', ts: touch.ts, sent: 0, received: 0 };
      sum.channelType = touch.channelType;
      sum.ts = Math.max(sum.ts, touch.ts);
      if (touch.direction === 'sent') sum.sent += 1;
      else sum.received += 1;
      channels.set(touch.channelId, sum);
    } else if (write.type === 'delivery') {
      const { row } = write;
      cells.deliveries.push([
        row.ts,
        row.channelId,
        row.channelType,
        row.sessionKey,
        row.traceId,
        row.outcome,
        row.latencyMs,
        row.errorKind,
      ]);
    } else if (write.type === 'diagnostic') {
      const { row } = write;
      cells.diagnostics.push([row.ts, row.category, row.kind, row.count, row.severity, row.data]);
    } else {
      const { row } = write;
      cells.signals.push([row.ts, row.kind, row.agentId, row.rootRunId, row.severity, row.data]);
    }
  }
  for (const id of [...channels.keys()].sort()) {
    const sum = channels.get(id);
    if (sum !== undefined) cells.channels.push([id, sum.channelType, sum.ts, sum.sent, sum.received]);
  }
  return cells;
}
