// Learned procedures: the per-agent cache offered to the skills registry, admission with the per-agent cap, archive,
// and the lifecycle a settled use moves them through (candidate → active → stale → archived).
import type { Logger } from 'pino';
import type { LearningConfig } from '../config/index.js';
import type { LearnedProcedure, LearningPort, ProcedureState } from '../store/index.js';
import type { CandidateProcedure, OfferedProcedure } from './types.js';

/** How stale the offered cache may get when learning itself changed nothing (another replica may have). */
export const CACHE_REFRESH_MS = 5_000;
/** Procedures the cache reads at most (all agents); far above agents × maxProceduresPerAgent of a real fleet. */
export const CACHE_MAX_PROCEDURES = 10_000;

export interface LifecycleChange {
  procedureId: string;
  agentId: string;
  from: ProcedureState;
  to: ProcedureState;
}

export interface ProceduresDeps {
  port: LearningPort;
  config: () => LearningConfig;
  now: () => number;
  newId: () => string;
  log: Logger;
}

export interface Procedures {
  offered(agentId: string): readonly OfferedProcedure[];
  refresh(): Promise<void>;
  admit(candidate: CandidateProcedure): Promise<{ id: string; created: boolean }>;
  archive(id: string): Promise<LearnedProcedure | undefined>;
  /** Re-reads the procedure's settled uses and moves it along its lifecycle; the change made, if any. */
  evaluate(procedureId: string): Promise<LifecycleChange | undefined>;
}

const OFFERED_STATES: readonly ProcedureState[] = ['candidate', 'active', 'stale'];

function toOffered(procedure: LearnedProcedure): OfferedProcedure | undefined {
  const { id, agentId, name, description, body, state, tools } = procedure;
  if (state === 'archived') return undefined;
  return { id, agentId, name, description, body, state, allowedTools: tools };
}

/** Lowest proof first: fewest successful uses, then the smallest cluster, then the oldest. */
function byProof(a: LearnedProcedure, b: LearnedProcedure): number {
  return a.successUses - b.successUses || a.cardinality - b.cardinality || a.createdAt - b.createdAt;
}

export function createProcedures({ port, config, now, newId, log }: ProceduresDeps): Procedures {
  let cache = new Map<string, OfferedProcedure[]>();
  let loadedAt = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;

  function refresh(): Promise<void> {
    loading ??= (async () => {
      try {
        const stored = await port.procedures({ limit: CACHE_MAX_PROCEDURES });
        const next = new Map<string, OfferedProcedure[]>();
        for (const procedure of stored) {
          const offered = toOffered(procedure);
          if (offered === undefined) continue;
          next.set(offered.agentId, [...(next.get(offered.agentId) ?? []), offered]);
        }
        cache = next;
        loadedAt = now();
      } catch (error) {
        log.warn({ err: error }, 'learned procedures could not be read; the cache is kept');
      } finally {
        loading = undefined;
      }
    })();
    return loading;
  }

  async function save(procedure: LearnedProcedure): Promise<void> {
    await port.saveProcedure(procedure);
  }

  /** Archives the agent's lowest-proof candidates while it keeps more than maxProceduresPerAgent procedures. */
  async function applyCap(agentId: string): Promise<void> {
    const { maxProceduresPerAgent } = config();
    const kept = (await port.procedures({ agentId, limit: CACHE_MAX_PROCEDURES })).filter((procedure) =>
      OFFERED_STATES.includes(procedure.state),
    );
    const excess = kept.length - maxProceduresPerAgent;
    if (excess <= 0) return;
    const at = now();
    const candidates = kept.filter((procedure) => procedure.state === 'candidate').sort(byProof);
    for (const procedure of candidates.slice(0, excess))
      await save({ ...procedure, state: 'archived', updatedAt: at, stateSince: at });
  }

  return {
    offered(agentId) {
      if (now() - loadedAt >= CACHE_REFRESH_MS) void refresh();
      return cache.get(agentId) ?? [];
    },
    refresh,
    async admit(candidate) {
      const at = now();
      const existing = await port.procedureFor(candidate.agentId, candidate.toolSequence, candidate.topicKey);
      const fields = {
        name: candidate.name,
        description: candidate.description,
        body: candidate.body,
        tools: [...candidate.tools],
        cardinality: candidate.cardinality,
        synthesisAbstained: candidate.synthesisAbstained,
        sourceTraceIds: [...candidate.sourceTraceIds],
      };
      if (existing !== undefined) {
        // Refreshed in place, its state and counts kept: an archived one stays archived.
        await save({ ...existing, ...fields, updatedAt: at });
        await refresh();
        return { id: existing.id, created: false };
      }
      const id = newId();
      await save({
        id,
        agentId: candidate.agentId,
        ...fields,
        state: 'candidate',
        toolSequence: [...candidate.toolSequence],
        topicKey: candidate.topicKey,
        successUses: 0,
        failureUses: 0,
        createdAt: at,
        updatedAt: at,
        stateSince: at,
      });
      await applyCap(candidate.agentId);
      await refresh();
      return { id, created: true };
    },
    async archive(id) {
      const procedure = await port.procedure(id);
      if (procedure === undefined) return undefined;
      if (procedure.state === 'archived') return procedure;
      const at = now();
      const archived = { ...procedure, state: 'archived' as const, updatedAt: at, stateSince: at };
      await save(archived);
      await refresh();
      return archived;
    },
    async evaluate(procedureId) {
      const procedure = await port.procedure(procedureId);
      if (procedure === undefined) return undefined;
      const { promoteAfter, demoteAfter } = config();
      const [all, current] = await Promise.all([
        port.tally(procedureId, 0),
        port.tally(procedureId, procedure.stateSince),
      ]);
      let to: ProcedureState = procedure.state;
      if (procedure.state === 'candidate' && current.success >= promoteAfter) to = 'active';
      else if (procedure.state === 'active' && current.failingSessions >= demoteAfter) to = 'stale';
      else if (procedure.state === 'stale' && current.failingSessions >= demoteAfter) to = 'archived';
      const at = now();
      const isCountChange = all.success !== procedure.successUses || all.failure !== procedure.failureUses;
      if (to === procedure.state && !isCountChange) return undefined;
      await save({
        ...procedure,
        successUses: all.success,
        failureUses: all.failure,
        state: to,
        updatedAt: at,
        ...(to === procedure.state ? {} : { stateSince: at }),
      });
      if (to === procedure.state) return undefined;
      await refresh();
      return { procedureId, agentId: procedure.agentId, from: procedure.state, to };
    },
  };
}
