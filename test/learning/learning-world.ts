// The learning module over real SQLite and the real obs stack, with turns driven through its turn hooks as the turn
// loop calls them (the skills registry's skill_read reports uses through `source`), for the module-level suites.
import { learningConfigSchema, type LearningConfig } from '../../src/config/index.js';
import { createLearningModule, type CandidateProcedure, type LearningModule } from '../../src/learning/index.js';
import type { IncidentReport } from '../../src/obs/explain/index.js';
import type { ReflectFunnel } from '../../src/learning/reflect/index.js';
import { TRAJECTORY_KIND } from '../../src/obs/index.js';
import { createLogger } from '../../src/obs/logger.js';
import type { MethodDefinition } from '../../src/rpc/types.js';
import type { LearningPort } from '../../src/store/index.js';
import { createLearningPort } from '../../src/store/shared/index.js';
import {
  createSqliteMemoryPort,
  createSqliteSessionPort,
  sqliteStoreDb,
  type SqliteSessionPort,
} from '../../src/store/sqlite/index.js';
import type { TurnHookContext } from '../../src/turns/types.js';
import { startObs, type ObsStack } from '../obs/support.js';

/** What the stand-in reflect stage answers besides the agent and its source count. */
export const EMPTY_FUNNEL: ReflectFunnel = {
  agentId: '',
  synthesized: 0,
  validated: 0,
  admitted: 0,
  maxClusterCardinality: 0,
  distinctTopicKeys: 0,
  untrustedDrops: 0,
  nameLengthRejections: 0,
  skipped: 0,
  sourceTrajectoryCount: 0,
  totalSourceChars: 0,
  admissionOutcome: 'no_successes',
  timestamp: 0,
};

const log = createLogger({ level: 'silent' });

export function candidate(overrides: Partial<CandidateProcedure> = {}): CandidateProcedure {
  return {
    agentId: 'main',
    name: 'tell-time',
    description: 'Tell the time of a city',
    body: '# Goal\nTell the time.\n## Steps\n1. current_time\n',
    tools: ['current_time'],
    toolSequence: ['current_time'],
    topicKey: 'city+time',
    cardinality: 3,
    synthesisAbstained: false,
    sourceTraceIds: ['a', 'b', 'c'],
    ...overrides,
  };
}

export interface TurnOptions {
  /** Each call's ok, in order. */
  tools?: boolean[];
  toolName?: string;
  /** A learned procedure the turn read (skill_read). */
  procedureId?: string;
  finish?: string;
  clientId?: string;
  /** False: return without waiting for learning's background lane. */
  isAwaited?: boolean;
}

export interface LearningWorld {
  stack: ObsStack;
  port: LearningPort;
  sessions: SqliteSessionPort;
  learning: LearningModule;
  /** Read by the module at each use. */
  config: LearningConfig;
  /** The agent ids each reflect pass was asked for. */
  reflected: (string | undefined)[];
  /** Holds every outcome write back until resolved (the background lane busy while turns go on). */
  gate: Promise<void>;
  /** One turn of agent `main` in `default:<session>:chat`; resolves to its trace id. */
  turn(session: string, message: string, options?: TurnOptions): Promise<string>;
  explain(session: string): Promise<IncidentReport>;
  /** Calls one of the module's methods as the registry would, after its params schema. */
  method(name: string): (params: unknown) => Promise<unknown>;
  /** The data of each health signal of that kind, in order. */
  signals(kind: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export function createLearningWorld(): LearningWorld {
  const stack = startObs();
  const port = createLearningPort(sqliteStoreDb(stack.db));
  const sessions = createSqliteSessionPort(stack.db);
  const memory = createSqliteMemoryPort(stack.db, { exactVectorSearch: true });
  let ids = 0;
  let traces = 0;
  const world: LearningWorld = {
    stack,
    port,
    sessions,
    config: learningConfigSchema.parse({ promoteAfter: 3, demoteAfter: 2, maxProceduresPerAgent: 3 }),
    reflected: [],
    gate: Promise.resolve(),
    learning: createLearningModule({
      port: {
        ...port,
        async saveOutcomes(records) {
          await world.gate;
          await port.saveOutcomes(records);
        },
      },
      sessions,
      memory: { demote: (list, at) => memory.demote(list, at), flushRecallMarks: async () => undefined },
      recorder: stack.recorder,
      signals: stack.obs.signals,
      router: {
        resolve: () => undefined,
        stream: () => {
          throw new Error('no judge configured');
        },
      },
      config: () => world.config,
      leases: { acquire: async () => true, release: async () => undefined },
      now: () => stack.clock.now,
      newId: () => `proc-${(ids += 1)}`,
      log,
      // Stands in for the reflect stage (src/learning/reflect), which reads through the ports it is given.
      reflector: (ports) => ({
        async reflect(agentId) {
          world.reflected.push(agentId);
          const sources = await ports.readSources(agentId ?? 'main', { maxTrajectories: 10, maxChars: 1_000 });
          return [{ ...EMPTY_FUNNEL, agentId: agentId ?? 'main', sourceTrajectoryCount: sources.length }];
        },
      }),
    }),
    async turn(session, message, options = {}) {
      const { tools = [], procedureId, finish = 'stop', toolName = 'current_time' } = options;
      const { clientId = 'rpc-client', isAwaited = true } = options;
      const { learning } = world;
      traces += 1;
      const traceId = `trace-${traces}`;
      stack.clock.now += 1_000;
      const sessionKey = `default:${session}:chat`;
      const ctx: TurnHookContext = {
        agentId: 'main',
        sessionKey,
        keyParts: { tenantId: 'default', userId: session, channelId: 'chat' },
        traceId,
        clientId,
        ownerId: 'rpc-client',
        signal: new AbortController().signal,
      };
      const recorded = stack.recorder.openTurn({
        traceId,
        sessionKey,
        agentId: 'main',
        channel: 'chat',
        startedAt: stack.clock.now,
        isSynthetic: false,
      });
      await learning.hooks.beforeModel({ message, step: 1 }, ctx);
      if (procedureId !== undefined)
        learning.source.recordUse({ agentId: 'main', sessionKey, traceId, skill: 'tell-time', procedureId });
      for (const [index, ok] of tools.entries())
        await learning.hooks.afterTool({ toolCallId: `c${index}`, toolName, input: {}, ok, durationMs: 1 }, ctx);
      recorded.step(TRAJECTORY_KIND.turnEnd, stack.clock.now, { finishReason: finish });
      await learning.hooks.afterTurn(
        { finishReason: finish, steps: 1, tokensUsed: { input: 1, output: 1, total: 2 }, costUsd: 0 },
        ctx,
      );
      // As the turn loop names its ending (src/turns/turn-tally.ts endReasonOf).
      const failed = tools.some((ok) => !ok);
      const endReason = finish === 'stop' ? (failed ? 'completed_with_tool_errors' : 'completed') : finish;
      recorded.end({ endReason, degraded: endReason !== 'completed', endedAt: stack.clock.now });
      if (isAwaited) await learning.settled();
      return traceId;
    },
    async explain(session) {
      await stack.recorder.flush();
      return (await stack.obs.explain({ sessionKey: `default:${session}:chat` })) as IncidentReport;
    },
    method(name) {
      const found = world.learning.methods?.find((definition) => definition.name === name) as
        MethodDefinition | undefined;
      if (found === undefined) throw new Error(`no method ${name}`);
      return async (params) => found.handler(found.params.parse(params) as never, {} as never);
    },
    async signals(kind) {
      await stack.obs.flush();
      const rows = stack.db.prepare('SELECT data FROM health_signals WHERE kind = ? ORDER BY id').all(kind) as {
        data: string;
      }[];
      return rows.map((row) => JSON.parse(row.data) as Record<string, unknown>);
    },
    async close() {
      await world.learning.stop?.();
      await stack.close();
    },
  };
  return world;
}
