// The scheduler module over a real SQLite store and TurnService (scripted loop), a fake clock, real tools and leases.
import type { RateCounter } from '../../src/coordination/types.js';
import { createEventBus } from '../../src/events/index.js';
import { z } from 'zod';
import { createToolRegistry, defineTool, type ToolDefinition } from '../../src/agents/index.js';
import { createLocalLeases, createLocalRateCounter } from '../../src/coordination/index.js';
import { GatewayError } from '../../src/errors.js';
import { schedulerConfigSchema, type SchedulerConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/obs/logger.js';
import type { HealthSignal, TrajectoryRecord } from '../../src/obs/index.js';
import { createDispatcher, createRegistry, type DispatchContext, type JsonRpcErrorData } from '../../src/rpc/index.js';
import {
  createSchedulerModule,
  type RunLifecycle,
  type SchedulerClock,
  type SchedulerLeases,
  type SchedulerModule,
  type SchedulerModuleDeps,
} from '../../src/scheduler/index.js';
import { createSqliteJobPort } from '../../src/store/sqlite/index.js';
import { createServiceFixture, type ServiceFixture } from '../sessions/service-fixture.js';

const log = createLogger({ level: 'silent' });

/** Timers the fake clock holds; advancing it fires each due one at its own instant. */
export interface FakeClock extends SchedulerClock {
  /** Moves time forward by `ms`, firing every timer due on the way, each at its own instant. */
  advance(ms: number): Promise<void>;
  /** Moves time to the epoch ms `at` (never backwards), firing timers on the way. */
  advanceTo(at: number): Promise<void>;
  pendingTimers(): number;
}

/** Lets the scheduler's async work (SQLite calls wrapped in promises, bus delivery) run to its next wait. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

function createFakeClock(fx: ServiceFixture): FakeClock {
  let timers: { at: number; fire: () => void }[] = [];
  async function advanceTo(target: number): Promise<void> {
    for (;;) {
      const due = timers.filter((timer) => timer.at <= target).sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      timers = timers.filter((timer) => timer !== due);
      if (due.at > fx.now()) fx.advance(due.at - fx.now());
      due.fire();
      await settle();
    }
    if (target > fx.now()) fx.advance(target - fx.now());
    await settle();
  }
  return {
    now: () => fx.now(),
    setTimer(fire, delayMs) {
      const timer = { at: fx.now() + delayMs, fire };
      timers.push(timer);
      return () => {
        timers = timers.filter((entry) => entry !== timer);
      };
    },
    advanceTo,
    advance: (ms) => advanceTo(fx.now() + ms),
    pendingTimers: () => timers.length,
  };
}

/** A gate tool whose answer each test sets: `[]` by default (nothing to do), or a failure. */
export interface InboxTool {
  items: unknown[];
  fails: boolean;
  calls: number;
}

/** A JSON-RPC response read loosely, so tests can look at `result` or `error` without narrowing first. */
export interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: JsonRpcErrorData };
}

export interface SchedulerFixture {
  fx: ServiceFixture;
  clock: FakeClock;
  module: SchedulerModule;
  signals: HealthSignal[];
  trajectory: TrajectoryRecord[];
  started: { runId: string; rootRunId: string; kind: string; sessionKey: string; requestedBy: string | null }[];
  inbox: InboxTool;
  /** The scheduler config the module reads at each use; a test may change it as a config edit would. */
  config: SchedulerConfig;
  /** The rate-limit counter the fires count against, as the HTTP surfaces do (keys `token:<id>`), on the fake clock. */
  rateCounter: RateCounter;
  emit: ReturnType<typeof createEventBus>['emit'];
  /** The bus the module emits on (a test subscribes to see scheduler:* events). */
  bus: ReturnType<typeof createEventBus>;
  /** Calls a cron.* method through the real JSON-RPC dispatcher as this client (scopes ['rpc'] unless admin). */
  call(clientId: string, method: string, params?: unknown, isAdmin?: boolean): Promise<RpcAnswer>;
  /** cron.runs entries of the job, newest first, as the client sees them. */
  runs(jobName: string, clientId?: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export interface SchedulerFixtureOptions {
  path?: string;
  config?: Partial<SchedulerConfig>;
  /** Epoch ms the clock starts at (the service fixture's T0 when absent). */
  startAt?: number;
  start?: boolean;
  /** Run control refuses every run with this message (as a killed or over-budget tree would be refused). */
  refuseRuns?: string;
  /** The coordination leases this instance competes for; the local (always held) ones when absent. */
  leases?: SchedulerLeases;
  /** The channel job changes are announced on to other replicas (coordination: redis); none when absent. */
  jobChanges?: SchedulerModuleDeps['jobChanges'];
  /** gateway.rateLimit the fires count against; generous (10,000 a minute) when absent. */
  rateLimit?: { maxRequests: number; windowMs: number };
  /** The channel delivery heartbeat jobs use (the channels module's deliver) and the configured channel ids. */
  heartbeats?: SchedulerModuleDeps['heartbeats'];
}

export async function createSchedulerFixture(options: SchedulerFixtureOptions = {}): Promise<SchedulerFixture> {
  const fx = createServiceFixture(options.path === undefined ? {} : { path: options.path });
  if (options.startAt !== undefined) fx.advance(options.startAt - fx.now());
  const clock = createFakeClock(fx);
  const bus = createEventBus({ now: fx.now, log });
  const signals: HealthSignal[] = [];
  const trajectory: TrajectoryRecord[] = [];
  const started: SchedulerFixture['started'] = [];
  const inbox: InboxTool = { items: [], fails: false, calls: 0 };
  const inboxTool: ToolDefinition = defineTool({
    name: 'inbox_unread',
    description: 'Unread inbox items.',
    input: z.strictObject({ folder: z.string() }),
    execute: async () => {
      inbox.calls += 1;
      if (inbox.fails) throw new Error('mail server unreachable');
      return inbox.items;
    },
  });
  // The issue 13 RunLifecycle contract, implemented here by the test: it records what was started.
  const runs: RunLifecycle = {
    async startRun(input) {
      if (options.refuseRuns !== undefined) throw new GatewayError('conflict', options.refuseRuns);
      started.push(input);
      return { signal: new AbortController().signal, finish: async () => {} };
    },
  };
  const config = schedulerConfigSchema.parse(options.config ?? {});
  const rateCounter = createLocalRateCounter(fx.now);
  const rateLimit = options.rateLimit ?? { maxRequests: 10_000, windowMs: 60_000 };
  let ids = 0;
  const module = createSchedulerModule({
    jobs: createSqliteJobPort(fx.db),
    turns: fx.turns,
    events: bus,
    signals: { record: (signal) => signals.push(signal) },
    recorder: { trajectory: (record) => trajectory.push(record) },
    tools: createToolRegistry([inboxTool]),
    leases: options.leases ?? createLocalLeases(),
    agents: { get: (agentId) => (agentId === 'default' ? {} : undefined), defaultAgentId: () => 'default' },
    config: () => config,
    runs,
    clock,
    newId: () => `id-${++ids}`,
    log,
    rateLimit: { counter: rateCounter, limit: () => rateLimit },
    ...(options.jobChanges === undefined ? {} : { jobChanges: options.jobChanges }),
    ...(options.heartbeats === undefined ? {} : { heartbeats: options.heartbeats }),
  });
  const dispatcher = createDispatcher({ registry: createRegistry([...(module.methods ?? [])]), maxBatchSize: 50 });
  let nextId = 0;
  const call = async (clientId: string, method: string, params?: unknown, isAdmin = false) => {
    const ctx: DispatchContext = {
      caller: { clientId, scopes: isAdmin ? ['*'] : ['rpc'] },
      transport: 'http',
      log,
      signal: new AbortController().signal,
    };
    nextId += 1;
    const response = await dispatcher.dispatch(
      { jsonrpc: '2.0', id: nextId, method, ...(params === undefined ? {} : { params }) },
      ctx,
    );
    if (response === undefined || response === null || Array.isArray(response))
      throw new Error('expected one response');
    const answer: RpcAnswer = response;
    return answer;
  };
  if (options.start !== false) await module.start?.();
  return {
    fx,
    clock,
    module,
    signals,
    trajectory,
    started,
    inbox,
    config,
    rateCounter,
    emit: bus.emit,
    bus,
    call,
    async runs(jobName, clientId = 'rpc-client') {
      const response = await call(clientId, 'cron.runs', { jobName });
      if (!('result' in response)) throw new Error(`cron.runs failed: ${JSON.stringify(response)}`);
      const { runs: entries } = z.object({ runs: z.array(z.record(z.string(), z.unknown())) }).parse(response.result);
      return entries;
    },
    async close() {
      await module.stop?.();
      await fx.close();
    },
  };
}
