// The metrics module app-modules.ts adds when metrics are on: the Prometheus instruments of the core, and the gauges
// read at scrape time from the modules built before it (breakers, approvals, connections, runs, memory, channels).
import type { ModuleCore } from './app-core.js';
import type { ApprovalService } from './approvals/index.js';
import type { CapabilityModule } from './capability.js';
import type { ChannelsModule } from './channels/index.js';
import type { CountedSessionLocks } from './coordination/index.js';
import { createMetricsModule } from './metrics/index.js';

export interface MetricsSourceModules {
  approvals: { approvals: Pick<ApprovalService, 'pending'> };
  locks: Pick<CountedSessionLocks, 'waiting'>;
  channels: Pick<ChannelsModule, 'statuses'>;
}

export function createGatewayMetricsModule(
  core: ModuleCore,
  { approvals, locks, channels }: MetricsSourceModules,
): CapabilityModule | undefined {
  const { metrics, events, auth, started, startedAt, now, router, store } = core;
  if (metrics === undefined) return undefined;
  return createMetricsModule({
    metrics,
    events,
    auth,
    host: started.gateway.host,
    startedAt,
    now,
    sources: {
      breakers: () =>
        router.providers().map((provider) => ({ provider, state: router.breakerState(provider)?.state ?? 'closed' })),
      pendingApprovals: async () => (await approvals.approvals.pending()).length,
      wsConnections: () => core.transports?.wsConnections() ?? 0,
      sseSubscribers: () => core.transports?.sseSubscribers() ?? 0,
      runningRuns: async () => (await store.runs.runningOwners()).length,
      memory: () => store.memory.stats({}),
      sessionTurnsWaiting: () => locks.waiting(),
      channelStates: () => channels.statuses().map(({ state }) => state),
    },
  });
}
