// The GraphPort on both dialects: graph definitions, graph runs and their node records, JSON values stored as text.
import type {
  GraphDefinition,
  GraphNodeRecord,
  GraphNodeState,
  GraphRunRecord,
  GraphRunState,
  StoredGraph,
} from '../../graphs/types.js';
import { MAX_GRAPH_RUNS_PAGE, type GraphPort, type GraphRunPatch, type GraphRunQuery } from '../index.js';
import { first, type StoreDb } from './store-db.js';
import type { Tables } from './tables.js';

const RUN_STATES: readonly GraphRunState[] = ['running', 'completed', 'failed', 'cancelled', 'orphaned'];
const NODE_STATES: readonly GraphNodeState[] = ['pending', 'running', 'completed', 'failed', 'skipped', 'waiting'];

/** A stored state read back; a value no state has reads as `fallback` (rows are written from the same list). */
const oneOf = <T extends string>(value: string, allowed: readonly T[], fallback: T): T =>
  allowed.find((item) => item === value) ?? fallback;

/** A JSON column: null is "absent" (undefined), the text 'null' is JSON null. */
const toText = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));

function fromText(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    return undefined;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function toGraph(row: Tables['graphs']): StoredGraph {
  // saveDefinition wrote it from a definition validateDefinition returned: the store reads back its own rows.
  const definition: GraphDefinition = JSON.parse(row.definition);
  return {
    name: row.name,
    definition,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

// Optional fields are present only when set, so a record reads back equal to the one saved.
function toRun(row: Tables['graph_runs']): GraphRunRecord {
  const vars = fromText(row.vars);
  const output = fromText(row.output);
  return {
    runId: row.run_id,
    name: row.name,
    ownerId: row.owner_id,
    state: oneOf(row.state, RUN_STATES, 'failed'),
    vars: isRecord(vars) ? vars : {},
    ...(output === undefined ? {} : { output }),
    ...(row.error === null ? {} : { error: row.error }),
    ...(row.resumed_from === null ? {} : { resumedFrom: row.resumed_from }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function runRow(run: GraphRunRecord): Tables['graph_runs'] {
  return {
    run_id: run.runId,
    name: run.name,
    owner_id: run.ownerId,
    state: run.state,
    vars: JSON.stringify(run.vars),
    output: toText(run.output),
    error: run.error ?? null,
    resumed_from: run.resumedFrom ?? null,
    created_at: run.createdAt,
    updated_at: run.updatedAt,
  };
}

function toNode(row: Tables['graph_nodes']): GraphNodeRecord {
  const output = fromText(row.output);
  return {
    runId: row.run_id,
    nodeId: row.node_id,
    state: oneOf(row.state, NODE_STATES, 'failed'),
    attempts: row.attempts,
    ...(row.started_at === null ? {} : { startedAt: row.started_at }),
    ...(row.ended_at === null ? {} : { endedAt: row.ended_at }),
    ...(output === undefined ? {} : { output }),
    ...(row.error === null ? {} : { error: row.error }),
  };
}

function nodeRow(record: GraphNodeRecord): Tables['graph_nodes'] {
  return {
    run_id: record.runId,
    node_id: record.nodeId,
    state: record.state,
    attempts: record.attempts,
    started_at: record.startedAt ?? null,
    ended_at: record.endedAt ?? null,
    output: toText(record.output),
    error: record.error ?? null,
  };
}

export function createGraphPort(store: StoreDb): GraphPort {
  const { db } = store;
  const graphs = () => db.selectFrom('graphs').selectAll();
  const runs = () => db.selectFrom('graph_runs').selectAll();
  const readRun = async (runId: string) => {
    const row = await first(store, runs().where('run_id', '=', runId));
    return row === undefined ? undefined : toRun(row);
  };

  return {
    async saveDefinition(graph) {
      const row = {
        name: graph.name,
        definition: JSON.stringify(graph.definition),
        created_by: graph.createdBy,
        created_at: graph.createdAt,
        updated_at: graph.updatedAt,
      };
      const { name: _name, ...replaced } = row;
      await store.changes(
        db
          .insertInto('graphs')
          .values(row)
          .onConflict((conflict) => conflict.column('name').doUpdateSet(replaced)),
      );
    },
    async definition(name) {
      const row = await first(store, graphs().where('name', '=', name));
      return row === undefined ? undefined : toGraph(row);
    },
    async definitions() {
      return (await store.rows(graphs().orderBy('name'))).map(toGraph);
    },
    async deleteDefinition(name) {
      return (await store.changes(db.deleteFrom('graphs').where('name', '=', name))) > 0;
    },
    async createRun(run) {
      await store.changes(db.insertInto('graph_runs').values(runRow(run)));
    },
    run: readRun,
    async updateRun(runId, patch: GraphRunPatch) {
      const set: Partial<Tables['graph_runs']> = {
        ...(patch.state === undefined ? {} : { state: patch.state }),
        ...('output' in patch ? { output: toText(patch.output) } : {}),
        ...('error' in patch ? { error: patch.error ?? null } : {}),
        ...(patch.updatedAt === undefined ? {} : { updated_at: patch.updatedAt }),
      };
      // An empty patch still answers whether the run exists.
      if (Object.keys(set).length === 0) return (await readRun(runId)) !== undefined;
      return (await store.changes(db.updateTable('graph_runs').set(set).where('run_id', '=', runId))) > 0;
    },
    async runs(query: GraphRunQuery) {
      let select = runs();
      if (query.name !== undefined) select = select.where('name', '=', query.name);
      if (query.ownerId !== undefined) select = select.where('owner_id', '=', query.ownerId);
      const limit = Math.min(Math.max(1, Math.floor(query.limit)), MAX_GRAPH_RUNS_PAGE);
      const rows = await store.rows(select.orderBy('created_at', 'desc').orderBy('run_id', 'desc').limit(limit));
      return rows.map(toRun);
    },
    async runningRuns() {
      return (await store.rows(runs().where('state', '=', 'running').orderBy('created_at'))).map(toRun);
    },
    async countRunning({ ownerId, name }) {
      let select = db
        .selectFrom('graph_runs')
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .where('state', '=', 'running');
      if (ownerId !== undefined) select = select.where('owner_id', '=', ownerId);
      if (name !== undefined) select = select.where('name', '=', name);
      return Number((await first(store, select))?.count ?? 0);
    },
    async saveNode(record) {
      const row = nodeRow(record);
      const { run_id: _run, node_id: _node, ...replaced } = row;
      await store.changes(
        db
          .insertInto('graph_nodes')
          .values(row)
          .onConflict((conflict) => conflict.columns(['run_id', 'node_id']).doUpdateSet(replaced)),
      );
    },
    async nodes(runId) {
      const rows = await store.rows(
        db.selectFrom('graph_nodes').selectAll().where('run_id', '=', runId).orderBy('node_id'),
      );
      return rows.map(toNode);
    },
  };
}
