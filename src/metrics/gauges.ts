// Gauges read from the running services when /metrics is scraped: breakers, approvals, connections, runs, scheduler,
// memory and queues. Nothing is counted on a hot path for them.
import { Gauge, type Registry } from 'prom-client';
import type { LabelCaps } from './label-cap.js';

export type BreakerStateName = 'closed' | 'open' | 'half-open';

/** What the gauges read; each is called once per scrape. Async ones that fail leave their gauge out of that scrape. */
export interface GaugeSources {
  /** Configured providers with their breaker's state. */
  breakers(): { provider: string; state: BreakerStateName }[];
  /** Approval requests waiting for a decision. */
  pendingApprovals(): Promise<number>;
  wsConnections(): number;
  /** Open SSE streams (/api/events and streamed REST chat). */
  sseSubscribers(): number;
  /** Runs recorded as running, on every replica sharing the store. */
  runningRuns(): Promise<number>;
  /** Scheduled job fires of this process in progress. */
  schedulerFiresRunning(): number;
  /** Memory entries by type, and the store's size in bytes. */
  memory(): Promise<{ byType: Record<string, number>; dbSizeBytes: number }>;
  /** Turns of this process waiting behind another turn of their session. */
  sessionTurnsWaiting(): number;
  /** Chat-platform connections (channels:) by state. */
  channelStates(): string[];
}

const BREAKER_STATES: readonly BreakerStateName[] = ['closed', 'half-open', 'open'];

/** Reads a value, leaving the gauge empty for this scrape when the source fails (storage down must not fail /metrics). */
async function settle<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch {
    return undefined;
  }
}

export function registerGauges(registry: Registry, sources: GaugeSources, caps: LabelCaps): void {
  const registers = [registry];
  new Gauge({
    name: 'gateway_provider_breaker_state',
    help: 'Circuit breaker state per provider: 1 for the current state (closed, half-open, open), 0 for the others.',
    labelNames: ['provider', 'state'],
    registers,
    collect() {
      this.reset();
      for (const { provider, state } of sources.breakers()) {
        const name = caps.cap('provider', provider);
        for (const candidate of BREAKER_STATES)
          this.set({ provider: name, state: candidate }, candidate === state ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'gateway_approvals_pending',
    help: 'Tool-call approval requests waiting for a decision.',
    registers,
    async collect() {
      const pending = await settle(() => sources.pendingApprovals());
      if (pending === undefined) this.reset();
      else this.set(pending);
    },
  });
  new Gauge({
    name: 'gateway_ws_connections',
    help: 'Open WebSocket connections.',
    registers,
    collect() {
      this.set(sources.wsConnections());
    },
  });
  new Gauge({
    name: 'gateway_sse_subscribers',
    help: 'Open server-sent event streams (/api/events and streamed REST chat).',
    registers,
    collect() {
      this.set(sources.sseSubscribers());
    },
  });
  new Gauge({
    name: 'gateway_runs_running',
    help: 'Runs (spawned sub-agents, scheduled fires, webhook and background runs) recorded as running, on every replica.',
    registers,
    async collect() {
      const running = await settle(() => sources.runningRuns());
      if (running === undefined) this.reset();
      else this.set(running);
    },
  });
  new Gauge({
    name: 'gateway_scheduler_fires_running',
    help: 'Scheduled job fires of this process in progress.',
    registers,
    collect() {
      this.set(sources.schedulerFiresRunning());
    },
  });
  const memoryBytes = new Gauge({
    name: 'gateway_store_size_bytes',
    help: 'Size of the database (SQLite file, or the PostgreSQL relations of the memory store) in bytes.',
    registers,
  });
  new Gauge({
    name: 'gateway_memory_entries',
    help: 'Memory entries, by memory type.',
    labelNames: ['type'],
    registers,
    async collect() {
      this.reset();
      const stats = await settle(() => sources.memory());
      for (const [type, entries] of Object.entries(stats?.byType ?? {}))
        this.set({ type: caps.cap('type', type) }, entries);
      memoryBytes.set(stats?.dbSizeBytes ?? 0);
    },
  });
  new Gauge({
    name: 'gateway_session_turns_waiting',
    help: 'Turns of this process queued behind another turn of the same session (gateway.maxWaitingTurnsPerSession).',
    registers,
    collect() {
      this.set(sources.sessionTurnsWaiting());
    },
  });
  new Gauge({
    name: 'gateway_channel_connections',
    help: 'Chat-platform connections (channels:), by state.',
    labelNames: ['state'],
    registers,
    collect() {
      this.reset();
      const counts = new Map<string, number>();
      for (const state of sources.channelStates()) counts.set(state, (counts.get(state) ?? 0) + 1);
      for (const [state, count] of counts) this.set({ state }, count);
    },
  });
}
