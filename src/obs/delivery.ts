// Delivery traces: one row per reply delivered (or not) to a channel, recorded by the turn that sent it; recent list and totals.
import type { ObsPort, ObsWrite } from '../store/index.js';
import type { BatchQueue } from './batch-queue.js';

/** Decided here (spec: "DeliveryTrace field list: not shown"). */
export interface DeliveryTrace {
  id: number;
  ts: number;
  channelId: string;
  channelType: string;
  sessionKey: string | null;
  traceId: string | null;
  outcome: 'success' | 'failure';
  /** From the message being received to the reply being sent. */
  latencyMs: number;
  errorKind: string | null;
}

export type DeliveryInput = Omit<DeliveryTrace, 'id' | 'ts' | 'sessionKey' | 'traceId' | 'errorKind'> & {
  ts?: number;
  sessionKey?: string;
  traceId?: string;
  errorKind?: string;
};

export const DELIVERY_DEFAULT_LIMIT = 100;
export const DELIVERY_MAX_LIMIT = 1000;

export interface DeliveryStats {
  total: number;
  successes: number;
  failures: number;
  avgLatencyMs: number;
}

/** What the turn knows when it finishes sending its reply. */
export interface DeliveryReply {
  channelId: string;
  /** Defaults to the channel id (a session key's channel names both). */
  channelType?: string;
  sessionKey: string;
  traceId: string;
  /** When the message being answered was received (epoch ms); the latency runs from here to now. */
  receivedAt: number;
  delivered?: boolean;
  errorKind?: string;
}

/** The one call the turn makes when its reply is sent. */
export interface DeliveryRecorder {
  replied(reply: DeliveryReply): void;
}

export interface DeliveryTracer extends DeliveryRecorder {
  record(trace: DeliveryInput): void;
  /** Newest first. */
  recent(filter: { sinceMs?: number; limit?: number; channelId?: string }): Promise<DeliveryTrace[]>;
  stats(): Promise<DeliveryStats>;
  reset(): Promise<number>;
}

export interface DeliveryTracerDeps {
  port: ObsPort;
  /** The obs write queue shared with diagnostics and health signals. */
  queue: BatchQueue<ObsWrite>;
  now: () => number;
}

export function createDeliveryTracer({ port, queue, now }: DeliveryTracerDeps): DeliveryTracer {
  function record(trace: DeliveryInput): void {
    queue.enqueue({
      type: 'delivery',
      row: {
        ts: trace.ts ?? now(),
        channelId: trace.channelId,
        channelType: trace.channelType,
        sessionKey: trace.sessionKey ?? null,
        traceId: trace.traceId ?? null,
        outcome: trace.outcome,
        latencyMs: Math.max(0, Math.round(trace.latencyMs)),
        errorKind: trace.errorKind ?? null,
      },
    });
  }

  function replied(reply: DeliveryReply): void {
    const ts = now();
    const isFailure = reply.delivered === false || reply.errorKind !== undefined;
    record({
      ts,
      channelId: reply.channelId.slice(0, 256),
      channelType: (reply.channelType ?? reply.channelId).slice(0, 64),
      sessionKey: reply.sessionKey,
      traceId: reply.traceId,
      outcome: isFailure ? 'failure' : 'success',
      latencyMs: ts - reply.receivedAt,
      ...(reply.errorKind !== undefined
        ? { errorKind: reply.errorKind.slice(0, 64) }
        : isFailure
          ? { errorKind: 'undelivered' }
          : {}),
    });
  }

  return {
    record,
    replied,
    async recent({ sinceMs, limit = DELIVERY_DEFAULT_LIMIT, channelId }) {
      await queue.flush();
      return port.deliveries({
        ...(sinceMs === undefined ? {} : { sinceMs }),
        ...(channelId === undefined ? {} : { channelId }),
        limit: Math.min(limit, DELIVERY_MAX_LIMIT),
      });
    },
    async stats() {
      await queue.flush();
      const { total, successes, avgLatencyMs } = await port.deliveryStats();
      return { total, successes, failures: total - successes, avgLatencyMs: Math.round(avgLatencyMs) };
    },
    async reset() {
      await queue.flush();
      return port.reset('delivery');
    },
  };
}
