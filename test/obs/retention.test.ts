// The evidence retention sweep (obs.retentionDays) over a real SQLite store with an injected clock: rows older than the
// window go, newer ones stay, reports on recent activity read the same before and after, the setting is read at every
// sweep, 0 keeps everything, only the holder of the lease sweeps, and obs.storage.stats reports sizes and the last sweep.
// Learning's outcome records and procedure uses are evidence; the learned procedures themselves are kept. Finished graph
// runs go with their node records; a running graph run stays whatever its age.
import { afterEach, describe, expect, it } from 'vitest';
import { EVIDENCE_TABLES, type LearnedProcedure } from '../../src/store/index.js';
import { createGraphPort, createLearningPort } from '../../src/store/shared/index.js';
import { sqliteStoreDb } from '../../src/store/sqlite/index.js';
import { RETENTION_BATCH_ROWS, RETENTION_LEASE, RETENTION_RENEW_BATCHES } from '../../src/obs/index.js';
import { PROCEDURE_ID, recordGraphRun, recordLearningEvidence } from '../store/retention.cases.js';
import { startObs, type ObsStack } from './support.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 15, 12);

const learningOf = (stack: ObsStack) => createLearningPort(sqliteStoreDb(stack.db));
const graphsOf = (stack: ObsStack) => createGraphPort(sqliteStoreDb(stack.db));

/** A learned procedure reflect admitted from the turns `sourceTraceIds` name. */
function procedure(ts: number, sourceTraceIds: string[]): LearnedProcedure {
  return {
    id: PROCEDURE_ID,
    agentId: 'default',
    name: 'tell-time',
    description: 'Tell the time',
    body: '# Goal\nTell the time.',
    tools: ['current_time'],
    state: 'candidate',
    toolSequence: ['current_time'],
    topicKey: 'time',
    cardinality: 2,
    synthesisAbstained: false,
    sourceTraceIds,
    successUses: 0,
    failureUses: 0,
    createdAt: ts,
    updatedAt: ts,
    stateSince: ts,
  };
}

/** Records one row in every evidence table at the stack's clock, through the recorders the gateway uses. */
async function recordTurn(stack: ObsStack, tag: string): Promise<void> {
  const ts = stack.clock.now;
  const sessionKey = `default:${tag}:ws`;
  const traceId = `trace-${tag}`;
  stack.recorder.startSession({
    traceId,
    sessionKey,
    agentId: 'default',
    channel: 'ws',
    startedAt: ts,
    isSynthetic: false,
  });
  stack.recorder.trajectory({ sessionKey, traceId, kind: 'turn_start', ts, data: {} });
  stack.recorder.usage({
    ts,
    agentId: 'default',
    sessionKey,
    provider: 'local',
    model: 'm',
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0.01,
  });
  stack.recorder.endSession(traceId, { endReason: 'completed', degraded: false, endedAt: ts });
  stack.obs.delivery.record({
    channelId: 'ws',
    channelType: 'ws',
    sessionKey,
    traceId,
    outcome: 'success',
    latencyMs: 5,
  });
  stack.obs.diagnostics.record({ category: 'model', kind: 'k', severity: 'info' });
  stack.obs.signals.record({ kind: 'health', ts, data: { code: tag } });
  stack.obs.audit.record({ kind: 'tool', traceId, ts });
  await stack.obs.flush();
  await stack.obs.audit.flush();
  const learning = learningOf(stack);
  await recordLearningEvidence(learning, { traceId, sessionKey, senderId: tag, ts });
  await recordGraphRun(graphsOf(stack), { runId: `graph-${tag}`, state: 'failed', ts });
}

/** What reports on the last week show. */
async function recentReports(stack: ObsStack) {
  const sinceMs = NOW - 7 * DAY;
  return {
    billing: await stack.obs.billing.total({ sinceMs }),
    deliveries: await stack.obs.delivery.recent({ sinceMs }),
    audit: await stack.obs.audit.query({ since: sinceMs }),
    traces: await stack.obs.traceSearch({}),
    explain: await stack.obs.explain({ sessionKey: 'default:recent:ws' }),
  };
}

describe('evidence retention', () => {
  let stack: ObsStack | undefined;
  afterEach(() => stack?.close());

  it('deletes evidence older than obs.retentionDays from every table, keeps newer rows and leaves recent reports as they were', async () => {
    stack = startObs(':memory:', { startAt: NOW - 45 * DAY, retentionDays: 30 });
    await recordTurn(stack, 'old');
    await recordGraphRun(graphsOf(stack), { runId: 'graph-still-running', state: 'running', ts: NOW - 45 * DAY });
    const learned = procedure(NOW - 45 * DAY, ['trace-old', 'trace-inside']);
    await learningOf(stack).saveProcedure(learned);
    stack.clock.now = NOW - 29 * DAY;
    await recordTurn(stack, 'inside');
    stack.clock.now = NOW - DAY;
    await recordTurn(stack, 'recent');
    stack.clock.now = NOW;
    const before = await recentReports(stack);

    const sweep = await stack.obs.retention.sweepNow();
    expect(sweep).toMatchObject({ outcome: 'swept', retentionDays: 30, cutoffMs: NOW - 30 * DAY, startedAt: NOW });
    expect(sweep.deleted).toMatchObject({ learning_outcomes: 1, procedure_uses: 1 });
    for (const table of EVIDENCE_TABLES) expect(sweep.deleted[table], table).toBe(1);
    const learning = learningOf(stack);
    expect(await learning.outcome('trace-old')).toBeUndefined();
    expect((await learning.outcome('trace-inside'))?.ts).toBe(NOW - 29 * DAY);
    expect((await learning.uses(PROCEDURE_ID, 10)).map((use) => use.traceId)).toEqual(['trace-recent', 'trace-inside']);
    const graphs = graphsOf(stack);
    expect(await graphs.run('graph-old')).toBeUndefined();
    expect(await graphs.nodes('graph-old')).toEqual([]);
    expect((await graphs.runs({ limit: 10 })).map((run) => run.runId)).toEqual([
      'graph-recent',
      'graph-inside',
      'graph-still-running',
    ]);
    // The procedure is no evidence: it stays, still naming the turn it came from though that turn's evidence is gone.
    expect(await learning.procedure(PROCEDURE_ID)).toEqual(learned);

    expect(await recentReports(stack)).toEqual(before);
    const stats = await stack.obs.retention.report();
    expect(stats).toMatchObject({ retentionDays: 30, lastSweep: sweep, storage: { backend: 'sqlite' } });
    expect(stats.storage.databaseBytes).toBeGreaterThan(0);
    expect(stats.storage.tables.map((table) => table.table)).toContain('graph_runs');
    for (const table of stats.storage.tables)
      if (table.table === 'graph_runs') expect(table).toMatchObject({ rows: 3, oldestMs: NOW - 45 * DAY });
      else expect(table, table.table).toMatchObject({ rows: 2, oldestMs: NOW - 29 * DAY });
    expect(await stack.obs.explain({ sessionKey: 'default:old:ws' })).toMatchObject({ marker: 'session_not_found' });
    expect((await stack.obs.billing.total({})).callCount).toBe(2);
  });

  it('keeps everything when obs.retentionDays is 0, and reads the setting again at every sweep', async () => {
    stack = startObs(':memory:', { startAt: NOW - 400 * DAY, retentionDays: 0 });
    await recordTurn(stack, 'ancient');
    stack.clock.now = NOW - 10 * DAY;
    await recordTurn(stack, 'recent');
    stack.clock.now = NOW;
    expect(await stack.obs.retention.sweepNow()).toMatchObject({ outcome: 'off', cutoffMs: null });
    expect((await stack.obs.billing.total({})).callCount).toBe(2);

    stack.settings.retentionDays = 7;
    const sweep = await stack.obs.retention.sweepNow();
    expect(sweep).toMatchObject({ outcome: 'swept', retentionDays: 7, cutoffMs: NOW - 7 * DAY });
    expect(sweep.deleted.token_usage).toBe(2);
    expect((await stack.obs.billing.total({})).callCount).toBe(0);
  });

  it('goes on batch after batch until every old row is gone', async () => {
    stack = startObs(':memory:', { startAt: NOW - 60 * DAY, retentionDays: 30 });
    const rows = RETENTION_BATCH_ROWS * 2 + 7;
    for (let index = 0; index < rows; index += 1)
      stack.obs.delivery.record({ channelId: 'ws', channelType: 'ws', outcome: 'success', latencyMs: 1 });
    await stack.obs.flush();
    stack.clock.now = NOW;
    expect((await stack.obs.retention.sweepNow()).deleted.delivery_traces).toBe(rows);
    expect(await stack.obs.delivery.stats()).toMatchObject({ total: 0 });
  });

  it('sweeps only while holding the retention lease, so one replica of several does the work', async () => {
    const holders = new Map<string, string>();
    const leaseFor = (instance: string) => ({
      acquire: async (name: string) =>
        (holders.get(name) ?? instance) === instance && holders.set(name, instance) !== undefined,
      renew: async (name: string) => holders.get(name) === instance,
      release: async (name: string) => {
        if (holders.get(name) === instance) holders.delete(name);
      },
    });
    holders.set(RETENTION_LEASE, 'other-replica');
    stack = startObs(':memory:', { startAt: NOW - 60 * DAY, retentionDays: 30, leases: leaseFor('here') });
    await recordTurn(stack, 'old');
    stack.clock.now = NOW;
    expect(await stack.obs.retention.sweepNow()).toMatchObject({ outcome: 'other_replica', cutoffMs: null });
    expect((await stack.obs.billing.total({})).callCount).toBe(1);
    holders.delete(RETENTION_LEASE);
    expect(await stack.obs.retention.sweepNow()).toMatchObject({ outcome: 'swept' });
    expect((await stack.obs.billing.total({})).callCount).toBe(0);
    expect(holders.has(RETENTION_LEASE)).toBe(false);
  });

  it('stops when another replica took the lease over mid-sweep, at the next renewal', async () => {
    const holders = new Map<string, string>();
    const leases = {
      // Taken here, then at once by another replica whose clock thought this one's had lapsed.
      acquire: async (name: string) => holders.set(name, 'other-replica') !== undefined,
      renew: async (name: string) => holders.get(name) === 'here',
      release: async () => {},
    };
    stack = startObs(':memory:', { startAt: NOW, retentionDays: 30, leases });
    const rows = RETENTION_BATCH_ROWS * RETENTION_RENEW_BATCHES + 50;
    stack.db
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
      INSERT INTO delivery_traces (ts, channel_id, channel_type, outcome, latency_ms) SELECT i, 'ws', 'ws', 'success', 1 FROM n`,
      )
      .run(rows);
    const sweep = await stack.obs.retention.sweepNow();
    expect(sweep).toMatchObject({ outcome: 'other_replica', cutoffMs: NOW - 30 * DAY });
    expect(sweep.deleted.delivery_traces).toBe(RETENTION_BATCH_ROWS * RETENTION_RENEW_BATCHES);
    expect(await stack.obs.delivery.stats()).toMatchObject({ total: 50 });
  });
});
