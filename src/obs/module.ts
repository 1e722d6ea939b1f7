// The obs capability module: the observability services over the evidence store, the obs.* methods, and shutdown.
import type { MethodModule } from '../rpc/types.js';
import { createBillingSnapshots } from './billing-snapshots.js';
import type { ApprovalPort, SessionPort } from '../store/index.js';
import { dashboardObsMethods } from './dashboard-methods.js';
import { recordBootPosture, type PostureEntry } from './health-feed.js';
import { obsMethods } from './methods.js';
import { createObservability, type Observability, type ObservabilityDeps } from './observability.js';
import { createTraceGet } from './trace-get.js';

/** A capability module (app.ts lists it with the others) that also hands out the observability services. */
export interface ObsModule extends MethodModule {
  /** The recorders and reports other modules and transports read (REST channel list, boot posture, health signals). */
  readonly observability: Observability;
  /**
   * Records this boot's config posture from the windows the providers serve; run after listen, so startup never
   * waits on an upstream. Never rejects: a failed probe is logged, and nothing is written once `signal` aborted.
   */
  recordBootPosture(
    servedWindows: (signal: AbortSignal) => Promise<PostureEntry[]>,
    signal: AbortSignal,
  ): Promise<void>;
}

/** The observability deps, and the ports the dashboard's reads join evidence with (owners, approval requests). */
export interface ObsModuleDeps extends ObservabilityDeps {
  store: ObservabilityDeps['store'] & { sessions: Pick<SessionPort, 'get'>; approvals: ApprovalPort };
}

export function createObsModule(deps: ObsModuleDeps): ObsModule {
  const observability = createObservability(deps);
  const snapshots = createBillingSnapshots({
    billing: observability.billing,
    events: deps.events,
    intervalMs: deps.billingSnapshotIntervalMs ?? (() => 0),
    now: deps.now,
    ...(deps.log === undefined ? {} : { log: deps.log }),
  });
  const getTrace = createTraceGet({
    evidence: deps.store.evidence,
    approvals: deps.store.approvals,
    sessions: deps.store.sessions,
    flush: () => observability.flush(),
  });
  return {
    name: 'obs',
    observability,
    methods: [...obsMethods({ obs: observability }), ...dashboardObsMethods({ dashboard: { getTrace } })],
    start() {
      observability.retention.start();
      snapshots.start();
    },
    async recordBootPosture(servedWindows, signal) {
      try {
        const entries = await servedWindows(signal);
        if (!signal.aborted) recordBootPosture(observability.signals, { bootId: deps.newId(), entries });
      } catch (error) {
        deps.log?.warn({ err: error }, 'the boot posture could not be recorded');
      }
    },
    async stop() {
      await snapshots.stop();
      await observability.close();
    },
  };
}
