// The observability:metrics event: every metrics.eventIntervalMs a small snapshot (totals and a few gauges) on the bus,
// so /api/events subscribers (admins) see the gateway's pulse without scraping /metrics.
import type { EventBus, MetricsSnapshot } from '../events/index.js';
import type { Totals } from './instruments.js';

export interface SnapshotSources {
  totals: Readonly<Totals>;
  startedAt: number;
  now: () => number;
  wsConnections(): number;
  sseSubscribers(): number;
  /** Providers whose breaker is not closed. */
  openBreakers(): number;
}

export function metricsSnapshot(sources: SnapshotSources): MetricsSnapshot {
  const { totals } = sources;
  const memory = process.memoryUsage();
  return {
    uptimeMs: sources.now() - sources.startedAt,
    httpRequests: totals.httpRequests,
    turns: totals.turns,
    modelCalls: totals.modelCalls,
    modelCallFailures: totals.modelCallFailures,
    inputTokens: totals.inputTokens,
    outputTokens: totals.outputTokens,
    // Rounded to a millionth of a dollar: the sum of many float costs carries noise below that.
    costUsd: Math.round(totals.costUsd * 1e6) / 1e6,
    toolCalls: totals.toolCalls,
    toolFailures: totals.toolFailures,
    wsConnections: sources.wsConnections(),
    sseSubscribers: sources.sseSubscribers(),
    openBreakers: sources.openBreakers(),
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
  };
}

/** Emits a snapshot every `intervalMs` (0: never) until the returned function is called; the timer keeps no process alive. */
export function emitSnapshots(events: EventBus, intervalMs: number, sources: SnapshotSources): () => void {
  if (intervalMs === 0) return () => {};
  const timer = setInterval(() => events.emit('observability:metrics', metricsSnapshot(sources)), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
