// Builds a SessionService over a real SQLite store with a controllable clock, captured events and notifications.
import type { AgentRegistry, TurnRunner } from '../../src/agents/types.js';
import { agentConfigSchema, type ConfigInput } from '../../src/config/index.js';
import type { Instances } from '../../src/coordination/index.js';
import { createEventBus, type BusEvent } from '../../src/obs/event-bus.js';
import { createLogger } from '../../src/obs/logger.js';
import type { ModelRouter } from '../../src/providers/types.js';
import { createSessionService, type SessionCaller, type SessionMemory, type SessionService, type SessionServiceOptions } from '../../src/sessions/index.js';
import type { RunStore, SessionStore } from '../../src/sessions/types.js';
import { createSqliteRunPort, createSqliteSessionPort, openDatabase, type SqliteDatabase } from '../../src/store/sqlite/index.js';
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
  store: SessionStore;
  runs: RunStore;
  runner: ScriptedRunner;
  sessions: SessionService;
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
  memory?: SessionMemory;
  /** Replaces the scripted runner (it is still created, over the same store). */
  runner?: TurnRunner;
  options?: SessionServiceOptions;
  /** Which instance this service is and which others are alive; a single-process one when absent. */
  instances?: Instances;
}

type AgentInput = NonNullable<ConfigInput['agents']>[string];

/** A fixed AgentRegistry over validated agent configs; the first one is the default. */
export function staticAgents(agents: Record<string, AgentInput>): AgentRegistry {
  const definitions = Object.entries(agents).map(([id, config]) => ({ id, config: agentConfigSchema.parse(config), status: 'active' as const }));
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
  let clock = T0;
  const now = () => clock;
  let ids = 0;
  const log = createLogger({ level: 'silent' });
  const bus = createEventBus({ now, log });
  const events: BusEvent[] = [];
  bus.subscribe((event) => events.push(event));
  const notifications: Notification[] = [];
  const runner = createScriptedRunner({ store, now });
  const sessions = createSessionService({
    store,
    runs,
    runner: options.runner ?? runner,
    ...(options.router === undefined ? {} : { router: options.router }),
    ...(options.agents === undefined ? {} : { agents: options.agents }),
    ...(options.memory === undefined ? {} : { memory: options.memory }),
    ...(options.options === undefined ? {} : { options: options.options }),
    ...(options.instances === undefined ? {} : { instances: options.instances }),
    events: bus,
    notify: (clientId, method, params) => notifications.push({ clientId, method, params }),
    now,
    newId: () => `run-${++ids}`,
    log,
  });
  return {
    db,
    store,
    runs,
    runner,
    sessions,
    events,
    notifications,
    advance: (ms) => {
      clock += ms;
    },
    now,
    async close() {
      await sessions.close();
      if (db.open) db.close();
    },
  };
}
