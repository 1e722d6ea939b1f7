// Scheduler: scheduled agent turns (cron.*): jobs in the store, one timer for the next fire, fired under the leader lease.
import type { RateCounter } from '../coordination/types.js';
import type { EventBus } from '../events/index.js';
import type { Logger } from 'pino';
import type { CapabilityModule } from '../capability.js';
import type { JobsChanged, PeerChannel } from '../coordination/index.js';
import type { HealthSignalRecorder, TrajectoryRecord } from '../obs/index.js';
import type { JobPort } from '../store/index.js';
import type { TurnRunner } from '../turns/index.js';
import { createFireAdmission, type RateLimitPolicy } from './fire-admission.js';
import { createJobService, type JobService } from './job-service.js';
import { cronMethods } from './methods.js';
import { createScheduler, type Scheduler, type SchedulerLeases, type SchedulerPolicy } from './scheduler.js';
import { systemClock, type RunLifecycle, type SchedulerClock } from './types.js';
import type { HeartbeatDelivery } from './heartbeat.js';
import type { GateTools } from './wake-gate.js';

export { WAKE_GATE_SKIPPED } from './fire.js';
export { DEFAULT_HEARTBEAT_PROMPT, heartbeatsThrough, type HeartbeatDelivery } from './heartbeat.js';
export { cronMethods } from './methods.js';
export { type RateLimitPolicy } from './fire-admission.js';
export { OVERLAP_SKIPPED, SCHEDULER_LEASE, type Scheduler, type SchedulerLeases } from './scheduler.js';
export { systemClock, type RunLifecycle, type SchedulerClock } from './types.js';

export interface SchedulerModuleDeps {
  jobs: JobPort;
  turns: TurnRunner;
  events: Pick<EventBus, 'emit' | 'recent'>;
  signals: HealthSignalRecorder;
  recorder: { trajectory(record: TrajectoryRecord): void };
  tools: GateTools;
  leases: SchedulerLeases;
  agents: { get(agentId: string): unknown; defaultAgentId(): string | undefined };
  /** The scheduler.* config section, read at each use so a config change applies at the next tick. */
  config: () => SchedulerPolicy & {
    minIntervalMs: number;
    defaultRunEntries: number;
    maxRunEntries: number;
    maxJobsPerOwner: number;
    jobHistoryMessages: number;
  };
  /** Each fire counts as one request of its owner token's gateway.rateLimit, in the counter the HTTP limiter uses. */
  rateLimit: { counter: RateCounter; limit: () => RateLimitPolicy };
  /** Run control (src/runs): each fire is a run, its signal aborted by run.kill, the denial breaker or shutdown. */
  runs: RunLifecycle;
  clock?: SchedulerClock;
  /**
   * With replicas (coordination: redis): a job changed here is announced to the other replicas' schedulers, and
   * their changes make this one look at the jobs again, so a job added anywhere is armed everywhere.
   */
  jobChanges?: PeerChannel<JobsChanged>;
  /** Heartbeat jobs' delivery to a chat (the channels module); without it cron.add refuses every heartbeat. */
  heartbeats?: HeartbeatDelivery;
  newId: () => string;
  log: Logger;
}

export interface SchedulerModule extends CapabilityModule {
  readonly scheduler: Scheduler;
  readonly service: JobService;
}

export function createSchedulerModule(deps: SchedulerModuleDeps): SchedulerModule {
  const clock = deps.clock ?? systemClock;
  const scheduler = createScheduler({
    jobs: deps.jobs,
    turns: deps.turns,
    runs: deps.runs,
    events: deps.events,
    signals: deps.signals,
    recorder: deps.recorder,
    gate: { recentEvents: (limit) => deps.events.recent(limit), tools: deps.tools },
    defaultAgentId: () => deps.agents.defaultAgentId() ?? 'default',
    historyLimit: () => deps.config().jobHistoryMessages,
    now: clock.now,
    newId: deps.newId,
    log: deps.log,
    clock,
    leases: deps.leases,
    policy: deps.config,
    admission: createFireAdmission({ counter: deps.rateLimit.counter, limit: deps.rateLimit.limit, log: deps.log }),
    ...(deps.heartbeats === undefined ? {} : { heartbeats: deps.heartbeats }),
  });
  const announced: Pick<Scheduler, 'reschedule' | 'force' | 'runDue'> = {
    async reschedule() {
      await scheduler.reschedule();
      deps.jobChanges
        ?.publish({})
        .catch((error: unknown) => deps.log.warn({ err: error }, 'could not tell other replicas of a job change'));
    },
    force: (job) => scheduler.force(job),
    runDue: (accept) => scheduler.runDue(accept),
  };
  let stopListening = (): void => {};
  const service = createJobService({
    jobs: deps.jobs,
    scheduler: announced,
    hasAgent: (agentId) => deps.agents.get(agentId) !== undefined,
    hasChannel: (channelId) => deps.heartbeats?.hasChannel(channelId) ?? false,
    limits: deps.config,
    now: clock.now,
    newId: deps.newId,
  });
  return {
    name: 'scheduler',
    scheduler,
    service,
    methods: cronMethods(service),
    async start() {
      await scheduler.start();
      const unsubscribe = deps.jobChanges?.subscribe(() => {
        scheduler
          .reschedule()
          .catch((error: unknown) =>
            deps.log.error({ err: error }, 'could not re-read the jobs after a change elsewhere'),
          );
      });
      stopListening = () => unsubscribe?.();
    },
    async stop() {
      stopListening();
      await scheduler.stop();
    },
  };
}
