// Learning: the outcome of every finished turn (tools, corrections, the judge, reactions, pipelines, feedback), the
// learned procedures reflect admits and their lifecycle, memory attribution of failed turns, and the reflect schedule.
import type { Logger } from 'pino';
import type { CapabilityModule } from '../capability.js';
import type { LearningConfig } from '../config/index.js';
import type { HealthSignalRecorder, Recorder } from '../obs/index.js';
import type { GatewayModelRouter } from '../providers/index.js';
import type { LearningPort, MemoryPort, SessionPort } from '../store/index.js';
import { createJudge } from './judge.js';
import { learningMethods } from './methods.js';
import { createOutcomes, type Outcomes } from './outcomes.js';
import { createProcedures } from './procedures.js';
import { createReflectPorts } from './reflect-ports.js';
import { createReflectTimer, type ReflectLeases, type ReflectTimer } from './reflect-timer.js';
import { createSettlement } from './settlement.js';
import type { LearnedProcedureSource, Reflector, ReflectPorts } from './types.js';
import { createWorkQueue } from './work-queue.js';

export { isCorrection, topicKey, toolOutcome, toolSequence } from './heuristics.js';
export type { CandidateProcedure, LearnedProcedureSource, Reflector, ReflectPorts } from './types.js';
/** For src/method-map.ts (the dashboard's typed calls). */
export type { learningMethods } from './methods.js';

export interface LearningModuleDeps {
  port: LearningPort;
  sessions: Pick<SessionPort, 'get' | 'history'>;
  /** Demotes the memories recalled into a failed turn, once the recall marks still buffered are written. */
  memory: Pick<MemoryPort, 'demote'> & { flushRecallMarks(): Promise<void> };
  recorder: Pick<Recorder, 'trajectory'>;
  signals: HealthSignalRecorder;
  /** The judge's model calls (learning.judge.model). */
  router: Pick<GatewayModelRouter, 'stream' | 'resolve'>;
  /** Read at each use, so a reload applies to the next turn (the reflect interval: at the next start). */
  config: () => LearningConfig;
  /** So one replica runs the scheduled reflect pass; a local gateway always holds them. */
  leases: ReflectLeases;
  /** Builds the reflect stage over learning's ports; absent: skills.reflect answers unavailable, nothing is scheduled. */
  reflector?: (ports: ReflectPorts) => Reflector;
  now: () => number;
  newId: () => string;
  log: Logger;
}

export interface LearningModule extends CapabilityModule {
  /** What the skills registry offers agents and reports skill_read uses to. */
  readonly source: LearnedProcedureSource;
  /** A reaction (channels) or a pipeline result (graphs) setting a finished turn's outcome. */
  readonly observe: Outcomes['observe'];
  /** The memory recall hook's report of the ids recalled into a turn. */
  readonly noteRecalled: Outcomes['noteRecalled'];
  readonly reflectPorts: ReflectPorts;
  readonly hooks: Outcomes['hooks'];
  /** Resolves once every outcome write and settlement queued so far is done (tests, shutdown). */
  settled(): Promise<void>;
}

export function createLearningModule(deps: LearningModuleDeps): LearningModule {
  const { port, config, now, log } = deps;
  const queue = createWorkQueue(log);
  const procedures = createProcedures({ port, config, now, newId: deps.newId, log });
  const settle = createSettlement({
    port,
    procedures,
    memory: deps.memory,
    recorder: deps.recorder,
    signals: deps.signals,
    now,
  });
  const judge = createJudge({ router: deps.router, sessions: deps.sessions, config, now, log });
  const outcomes = createOutcomes({
    port,
    sessions: deps.sessions,
    queue,
    settle,
    judge,
    recorder: deps.recorder,
    config,
    now,
    log,
  });
  const reflectPorts = createReflectPorts({ port, sessions: deps.sessions, procedures });
  const reflector = deps.reflector?.(reflectPorts);
  let timer: ReflectTimer | undefined;

  return {
    name: 'learning',
    source: {
      offered: (agentId) => (config().enabled ? procedures.offered(agentId) : []),
      recordUse(use) {
        if (config().enabled) outcomes.noteSkillUse(use);
      },
    },
    observe: outcomes.observe,
    noteRecalled(traceId, ids) {
      if (config().enabled) outcomes.noteRecalled(traceId, ids);
    },
    reflectPorts,
    settled: () => queue.idle(),
    hooks: outcomes.hooks,
    methods: learningMethods({
      port,
      procedures,
      outcomes,
      reflector: () => reflector,
      enabled: () => config().enabled,
    }),
    async start() {
      await procedures.refresh();
      const { enabled, reflectIntervalMs } = config();
      if (reflector === undefined || !enabled || reflectIntervalMs === 0) return;
      timer = createReflectTimer({ reflector, leases: deps.leases, intervalMs: reflectIntervalMs, log });
      timer.start();
    },
    async stop() {
      await timer?.stop();
      await judge.stop();
      await queue.stop();
    },
  };
}
