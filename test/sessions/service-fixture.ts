// Builds the session service and sub-agent runs over a real TurnService and SQLite store, with a scripted loop,
// a controllable clock, captured events and notifications.
import type { SessionCaller } from '../../src/agents/types.js';
import { createEventBus, type BusEvent } from '../../src/events/index.js';
import type { AgentRegistry } from '../../src/agents/index.js';
import { agentConfigSchema, type ConfigInput } from '../../src/config/index.js';
import { createLocalInstances, createSessionLocks, type Instances } from '../../src/coordination/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { createModelRouter } from '../../src/providers/index.js';
import type { ModelRouter } from '../../src/providers/types.js';
import {
  createRunControl,
  createSubAgentRuns,
  DEFAULT_RUN_HEARTBEAT_MS,
  type SubAgentRuns,
} from '../../src/runs/index.js';
import {
  createSessionService,
  type SessionPort,
  type SessionService,
  type SessionServiceOptions,
} from '../../src/sessions/index.js';
import type { RunPort } from '../../src/store/index.js';
import {
  createSqliteMemoryPort,
  createSqliteRunPort,
  createSqliteSessionPort,
  openDatabase,
  type SqliteDatabase,
  type SqliteMemoryPort,
} from '../../src/store/sqlite/index.js';
import { createTurnService, noHooks, type TurnService } from '../../src/turns/index.js';
import { tokenGrants, type TenantGrants } from '../support/token-grants.js';
import { createScriptedRunner, type ScriptedRunner } from './scripted-runner.js';

export const T0 = 1_700_000_000_000;

/** The caller a turn or spawn names: a token id, admin or not. */
export const callerOf = (clientId: string, isAdmin = false): SessionCaller => ({ clientId, isAdmin });

export interface Notification {
  clientId: string | null;
  method: string;
  params: unknown;
}

export interface ServiceFixture {
  db: SqliteDatabase;
  store: SessionPort;
  runs: RunPort;
  /** The SQLite memory port, when the fixture was built with `memory: true`. */
  memory: SqliteMemoryPort | undefined;
  runner: ScriptedRunner;
  turns: TurnService;
  sessions: SessionService;
  subAgents: SubAgentRuns;
  events: BusEvent[];
  notifications: Notification[];
  advance(ms: number): void;
  now(): number;
  close(): Promise<void>;
}

export interface ServiceFixtureOptions {
  path?: string;
  router?: ModelRouter;
  agents?: AgentRegistry;
  options?: SessionServiceOptions & { maxRunningSpawns?: number; runHeartbeatMs?: number };
  /** Which instance this process is and which others are alive; a single-process one when absent. */
  instances?: Instances;
  /** Wires the SQLite memory port into the session service (session.reset_conversation's memory layer). */
  memory?: boolean;
  /** Tenants besides `default` each token id is given (config gateway.tokens[].tenants); none when absent. */
  tenants?: TenantGrants;
}

type AgentInput = NonNullable<ConfigInput['agents']>[string];

/** A fixed AgentRegistry over validated agent configs; the first one is the default. */
export function staticAgents(agents: Record<string, AgentInput>): AgentRegistry {
  const definitions = Object.entries(agents).map(([id, config]) => ({
    id,
    config: agentConfigSchema.parse(config),
    status: 'active' as const,
  }));
  return {
    get: (agentId) => definitions.find((agent) => agent.id === agentId),
    list: () => definitions,
    defaultAgentId: () => definitions.find((agent) => agent.id === 'default')?.id ?? definitions[0]?.id,
  };
}

export function createServiceFixture(options: ServiceFixtureOptions = {}): ServiceFixture {
  const db = openDatabase({ path: options.path ?? ':memory:' });
  const store = createSqliteSessionPort(db);
  const runs = createSqliteRunPort(db);
  const memory = options.memory === true ? createSqliteMemoryPort(db, { exactVectorSearch: true }) : undefined;
  let clock = T0;
  const now = () => clock;
  let ids = 0;
  const log = createLogger({ level: 'silent' });
  const bus = createEventBus({ now, log });
  const events: BusEvent[] = [];
  bus.subscribe((event) => events.push(event));
  const notifications: Notification[] = [];
  const runner = createScriptedRunner({ store, now });
  const locks = createSessionLocks();
  // Turns need an agent; without a registry the fixture's turns run a stand-in `default` agent.
  const turnAgents = options.agents ?? staticAgents({ default: { name: 'default' } });
  const turns = createTurnService({
    agents: turnAgents,
    // The scripted loop calls no model; a router with no providers resolves the agents' model names to none.
    router: options.router ?? createModelRouter({ config: {}, events: bus, log }),
    store,
    locks,
    loop: runner,
    hooks: noHooks(log),
    events: bus,
    grants: tokenGrants(options.tenants),
    now,
    log,
  });
  const sessions = createSessionService({
    store,
    turns,
    locks,
    ...(memory === undefined ? {} : { memory }),
    ...(options.router === undefined ? {} : { router: options.router }),
    ...(options.agents === undefined ? {} : { agents: options.agents }),
    ...(options.options?.compactKeepRecent === undefined
      ? {}
      : { options: { compactKeepRecent: options.options.compactKeepRecent } }),
    now,
    log,
  });
  const instances = options.instances ?? createLocalInstances();
  const control = createRunControl({
    runs,
    events: bus,
    instances,
    now,
    log,
    runHeartbeatMs: options.options?.runHeartbeatMs ?? DEFAULT_RUN_HEARTBEAT_MS,
  });
  const subAgents = createSubAgentRuns({
    store,
    runs,
    turns,
    ...(options.agents === undefined ? {} : { agents: options.agents }),
    instances,
    control,
    events: bus,
    notify: (clientId, method, params) => notifications.push({ clientId, method, params }),
    now,
    newId: () => `run-${++ids}`,
    log,
    maxRunningSpawns: options.options?.maxRunningSpawns ?? 16,
  });
  return {
    db,
    store,
    runs,
    memory,
    runner,
    turns,
    sessions,
    subAgents,
    events,
    notifications,
    advance: (ms) => {
      clock += ms;
    },
    now,
    async close() {
      await subAgents.close();
      // As StorePorts.close() at shutdown: queued session writes reach the file before it closes.
      if (db.open) store.flush();
      if (db.open) db.close();
    },
  };
}
