// The LearningPort on both dialects: outcome records, learned procedures, their uses and each agent's last pass.
import {
  MAX_OUTCOMES_PER_SAVE,
  type LearningOutcome,
  type LearningPort,
  type LearningSource,
  type LearnedProcedure,
  type OutcomeRecord,
  type ProcedureState,
  type ProcedureUse,
} from '../index.js';
import { first, flag, isSet, prepared, type StoreDb } from './store-db.js';
import type { Tables } from './tables.js';

const OUTCOMES: readonly LearningOutcome[] = ['success', 'failure', 'corrected', 'unknown'];
const SOURCES: readonly LearningSource[] = ['tool', 'pipeline', 'correction', 'judge', 'reaction', 'explicit'];
const STATES: readonly ProcedureState[] = ['candidate', 'active', 'stale', 'archived'];
const FAILED: readonly LearningOutcome[] = ['failure', 'corrected'];

/** A stored JSON array of strings read back (anything else reads as empty). */
function strings(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

function oneOf<T extends string>(value: string | null, allowed: readonly T[]): T | null {
  return allowed.find((item) => item === value) ?? null;
}

function toOutcome(row: Tables['learning_outcomes']): OutcomeRecord {
  return {
    traceId: row.trace_id,
    agentId: row.agent_id,
    ownerId: row.owner_id,
    sessionKey: row.session_key,
    senderId: row.sender_id,
    ts: row.ts,
    outcome: oneOf(row.outcome, OUTCOMES),
    sources: strings(row.sources).flatMap((source) => oneOf(source, SOURCES) ?? []),
    toolSequence: strings(row.tool_sequence),
    topicKey: row.topic_key,
    trusted: isSet(row.trusted),
    skillsUsed: strings(row.skills_used),
    recalledMemoryIds: strings(row.recalled_memory_ids),
    sourceChars: row.source_chars,
  };
}

function outcomeRow(store: StoreDb, record: OutcomeRecord): Tables['learning_outcomes'] {
  return {
    trace_id: record.traceId,
    agent_id: record.agentId,
    owner_id: record.ownerId,
    session_key: record.sessionKey,
    sender_id: record.senderId,
    ts: record.ts,
    outcome: record.outcome,
    sources: JSON.stringify(record.sources),
    tool_sequence: JSON.stringify(record.toolSequence),
    topic_key: record.topicKey,
    trusted: flag(store, record.trusted),
    skills_used: JSON.stringify(record.skillsUsed),
    recalled_memory_ids: JSON.stringify(record.recalledMemoryIds),
    source_chars: record.sourceChars,
  };
}

function toProcedure(row: Tables['learned_procedures']): LearnedProcedure {
  return {
    id: row.id,
    agentId: row.agent_id,
    name: row.name,
    description: row.description,
    body: row.body,
    tools: strings(row.tools),
    state: oneOf(row.state, STATES) ?? 'archived',
    toolSequence: strings(row.tool_sequence),
    topicKey: row.topic_key,
    cardinality: row.cardinality,
    synthesisAbstained: isSet(row.synthesis_abstained),
    sourceTraceIds: strings(row.source_trace_ids),
    successUses: row.success_uses,
    failureUses: row.failure_uses,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    stateSince: row.state_since,
  };
}

function procedureRow(store: StoreDb, procedure: LearnedProcedure): Tables['learned_procedures'] {
  return {
    id: procedure.id,
    agent_id: procedure.agentId,
    name: procedure.name,
    description: procedure.description,
    body: procedure.body,
    tools: JSON.stringify(procedure.tools),
    state: procedure.state,
    tool_sequence: JSON.stringify(procedure.toolSequence),
    topic_key: procedure.topicKey,
    cardinality: procedure.cardinality,
    synthesis_abstained: flag(store, procedure.synthesisAbstained),
    source_trace_ids: JSON.stringify(procedure.sourceTraceIds),
    success_uses: procedure.successUses,
    failure_uses: procedure.failureUses,
    created_at: procedure.createdAt,
    updated_at: procedure.updatedAt,
    state_since: procedure.stateSince,
  };
}

function toUse(row: Omit<Tables['procedure_uses'], 'id'>): ProcedureUse {
  return {
    procedureId: row.procedure_id,
    traceId: row.trace_id,
    sessionKey: row.session_key,
    outcome: oneOf(row.outcome, OUTCOMES),
    ts: row.ts,
  };
}

const USE_COLUMNS = ['procedure_id', 'trace_id', 'session_key', 'outcome', 'ts'] as const;

export function createLearningPort(store: StoreDb): LearningPort {
  const { db } = store;
  const outcomes = () => db.selectFrom('learning_outcomes').selectAll();
  const procedures = () => db.selectFrom('learned_procedures').selectAll();
  // One statement shape, compiled once and prepared once; the turns finishing together are saved in one transaction.
  const upsertOutcome = prepared((row: Tables['learning_outcomes']) =>
    db
      .insertInto('learning_outcomes')
      .values(row)
      .onConflict((conflict) =>
        conflict.column('trace_id').doUpdateSet((eb) => ({
          agent_id: eb.ref('excluded.agent_id'),
          owner_id: eb.ref('excluded.owner_id'),
          session_key: eb.ref('excluded.session_key'),
          sender_id: eb.ref('excluded.sender_id'),
          ts: eb.ref('excluded.ts'),
          outcome: eb.ref('excluded.outcome'),
          sources: eb.ref('excluded.sources'),
          tool_sequence: eb.ref('excluded.tool_sequence'),
          topic_key: eb.ref('excluded.topic_key'),
          trusted: eb.ref('excluded.trusted'),
          skills_used: eb.ref('excluded.skills_used'),
          recalled_memory_ids: eb.ref('excluded.recalled_memory_ids'),
          source_chars: eb.ref('excluded.source_chars'),
        })),
      ),
  );

  return {
    async saveOutcomes(records) {
      for (let start = 0; start < records.length; start += MAX_OUTCOMES_PER_SAVE) {
        const batch = records.slice(start, start + MAX_OUTCOMES_PER_SAVE);
        await store.atomic(batch.map((record) => upsertOutcome(outcomeRow(store, record))));
      }
    },
    async outcome(traceId) {
      const row = await first(store, outcomes().where('trace_id', '=', traceId));
      return row === undefined ? undefined : toOutcome(row);
    },
    async sessionOutcomes(sessionKey, limit) {
      const query = outcomes().where('session_key', '=', sessionKey).orderBy('ts', 'desc').orderBy('trace_id', 'desc');
      return (await store.rows(query.limit(limit))).map(toOutcome);
    },
    async outcomesSince(agentId, afterTs, limit) {
      const query = outcomes()
        .where('agent_id', '=', agentId)
        .where('ts', '>', afterTs)
        .orderBy('ts', 'desc')
        .orderBy('trace_id', 'desc');
      return (await store.rows(query.limit(limit))).map(toOutcome);
    },
    async agentsWithOutcomes() {
      const query = db.selectFrom('learning_outcomes').select('agent_id').distinct().orderBy('agent_id');
      return (await store.rows(query)).map((row) => row.agent_id);
    },

    async saveProcedure(procedure) {
      const { id: _key, ...rest } = procedureRow(store, procedure);
      await store.changes(
        db
          .insertInto('learned_procedures')
          .values(procedureRow(store, procedure))
          .onConflict((conflict) => conflict.column('id').doUpdateSet(rest)),
      );
    },
    async procedure(id) {
      const row = await first(store, procedures().where('id', '=', id));
      return row === undefined ? undefined : toProcedure(row);
    },
    async procedureFor(agentId, toolSequence, topicKey) {
      const query = procedures()
        .where('agent_id', '=', agentId)
        .where('topic_key', '=', topicKey)
        .where('tool_sequence', '=', JSON.stringify(toolSequence))
        .orderBy('created_at')
        .orderBy('id');
      const row = await first(store, query.limit(1));
      return row === undefined ? undefined : toProcedure(row);
    },
    async procedures({ agentId, state, limit }) {
      let query = procedures();
      if (agentId !== undefined) query = query.where('agent_id', '=', agentId);
      if (state !== undefined) query = query.where('state', '=', state);
      const ordered = query.orderBy('agent_id').orderBy('created_at').orderBy('id').limit(limit);
      return (await store.rows(ordered)).map(toProcedure);
    },

    async recordUse(use) {
      await store.changes(
        db.insertInto('procedure_uses').values({
          procedure_id: use.procedureId,
          trace_id: use.traceId,
          session_key: use.sessionKey,
          outcome: use.outcome,
          ts: use.ts,
        }),
      );
    },
    async settleUses(traceId, outcome) {
      const query = db
        .updateTable('procedure_uses')
        .set({ outcome })
        .where('trace_id', '=', traceId)
        .where((eb) =>
          outcome === null
            ? eb('outcome', 'is not', null)
            : eb.or([eb('outcome', 'is', null), eb('outcome', '!=', outcome)]),
        )
        .returning(USE_COLUMNS);
      return (await store.rows(query)).map(toUse);
    },
    async uses(procedureId, limit) {
      const query = db
        .selectFrom('procedure_uses')
        .select(USE_COLUMNS)
        .where('procedure_id', '=', procedureId)
        .orderBy('ts', 'desc')
        .orderBy('id', 'desc')
        .limit(limit);
      return (await store.rows(query)).map(toUse);
    },
    async tally(procedureId, sinceTs) {
      const settled = db
        .selectFrom('procedure_uses')
        .where('procedure_id', '=', procedureId)
        .where('ts', '>=', sinceTs);
      const [successes, failures] = await Promise.all([
        first(store, settled.select((eb) => eb.fn.countAll<number>().as('n')).where('outcome', '=', 'success')),
        first(
          store,
          settled
            .select((eb) => [
              eb.fn.countAll<number>().as('n'),
              eb.fn.count<number>('session_key').distinct().as('sessions'),
            ])
            .where('outcome', 'in', FAILED),
        ),
      ]);
      return {
        success: Number(successes?.n ?? 0),
        failure: Number(failures?.n ?? 0),
        failingSessions: Number(failures?.sessions ?? 0),
      };
    },

    async lastPass(agentId) {
      const row = await first(
        store,
        db.selectFrom('learning_passes').select('passed_at').where('agent_id', '=', agentId),
      );
      return row?.passed_at ?? 0;
    },
    async markPassed(agentId, ts) {
      await store.changes(
        db
          .insertInto('learning_passes')
          .values({ agent_id: agentId, passed_at: ts })
          .onConflict((conflict) => conflict.column('agent_id').doUpdateSet({ passed_at: ts })),
      );
    },
  };
}
