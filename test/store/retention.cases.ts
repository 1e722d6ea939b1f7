// RetentionPort conformance: evidence rows older than a cut-off are deleted oldest first, a bounded batch per call, from
// every evidence table (learning's outcome records and procedure uses among them, finished graph runs with their node
// records); newer rows stay, running graph runs and graph definitions always stay; the store reports each table's rows
// and oldest time and the database's size.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GraphRunState } from '../../src/graphs/types.js';
import {
  EVIDENCE_TABLES,
  type AuditPort,
  type EvidencePort,
  type GraphPort,
  type LearningPort,
  type ObsPort,
  type RetentionPort,
} from '../../src/store/index.js';

export interface RetentionPortHandle {
  port: RetentionPort;
  /** The ports that write the evidence, over the same store. */
  evidence: EvidencePort;
  obs: ObsPort;
  audit: AuditPort;
  learning: LearningPort;
  graphs: GraphPort;
  close(): Promise<void>;
}

/** The learned procedure every recorded turn used (procedures themselves are no evidence: only their uses are). */
/** The learned procedure the evidence's uses name. */
export const PROCEDURE_ID = 'procedure-1';

/** One row in every evidence table, each recorded at `ts`; `tag` keeps ids apart. */
async function recordAll(handle: RetentionPortHandle, ts: number, tag: string): Promise<void> {
  const sessionKey = `default:${tag}:ws`;
  const traceId = `trace-${tag}`;
  await handle.evidence.append([
    {
      type: 'session_start',
      entry: { traceId, sessionKey, agentId: 'default', channel: 'ws', startedAt: ts, isSynthetic: false },
    },
    { type: 'trajectory', record: { sessionKey, traceId, kind: 'turn_start', ts, data: {} } },
    {
      type: 'usage',
      record: {
        ts,
        agentId: 'default',
        sessionKey,
        provider: 'p',
        model: 'm',
        inputTokens: 1,
        outputTokens: 1,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: 0,
      },
    },
    { type: 'session_end', end: { traceId, endReason: 'completed', degraded: false, endedAt: ts } },
  ]);
  await handle.obs.append([
    {
      type: 'delivery',
      row: {
        ts,
        channelId: 'ws',
        channelType: 'ws',
        sessionKey,
        traceId,
        outcome: 'success',
        latencyMs: 1,
        errorKind: null,
      },
    },
    { type: 'diagnostic', row: { ts, category: 'model', kind: 'k', count: 1, severity: 'info', data: '{}' } },
    {
      type: 'health_signal',
      row: { ts, kind: 'health', agentId: null, rootRunId: null, severity: 'info', data: '{}' },
    },
  ]);
  await handle.audit.append([
    {
      id: `audit-${tag}`,
      tenantId: '',
      agentId: null,
      ts,
      kind: 'tool',
      classification: 'unclassified',
      action: 'a',
      actor: 'system',
      outcome: 'ok',
      severity: 'info',
      traceId,
      refs: '{}',
    },
  ]);
  await recordLearningEvidence(handle.learning, { traceId, sessionKey, senderId: tag, ts });
  await recordGraphRun(handle.graphs, { runId: `graph-${tag}`, state: 'completed', ts });
}

/** A graph run last updated at `ts` in `state`, with one node record. */
export async function recordGraphRun(
  graphs: GraphPort,
  { runId, state, ts }: { runId: string; state: GraphRunState; ts: number },
): Promise<void> {
  await graphs.createRun({ runId, name: 'release', ownerId: 'owner', state, vars: {}, createdAt: ts, updatedAt: ts });
  await graphs.saveNode({ runId, nodeId: 'ask', state: 'completed', attempts: 1, startedAt: ts, endedAt: ts });
}

/** One finished turn's learning evidence: its outcome record and a use of PROCEDURE_ID, both at `ts`. */
export async function recordLearningEvidence(
  learning: LearningPort,
  { traceId, sessionKey, senderId, ts }: { traceId: string; sessionKey: string; senderId: string; ts: number },
): Promise<void> {
  await learning.saveOutcomes([
    {
      traceId,
      agentId: 'default',
      ownerId: null,
      sessionKey,
      senderId,
      ts,
      outcome: 'success',
      sources: ['tool'],
      toolSequence: ['current_time'],
      topicKey: 'time',
      trusted: true,
      skillsUsed: [],
      recalledMemoryIds: [],
      sourceChars: 5,
    },
  ]);
  await learning.recordUse({ procedureId: PROCEDURE_ID, traceId, sessionKey, outcome: 'success', ts });
}

export function retentionPortCases(name: string, open: () => Promise<RetentionPortHandle>): void {
  describe(`RetentionPort conformance: ${name}`, () => {
    let handle: RetentionPortHandle;
    beforeEach(async () => {
      handle = await open();
    });
    afterEach(async () => {
      await handle.close();
    });

    it('deletes the rows recorded before the cut-off from every evidence table and keeps the rest', async () => {
      await recordAll(handle, 1_000, 'old');
      await recordAll(handle, 2_000, 'edge');
      await recordAll(handle, 3_000, 'new');
      for (const table of EVIDENCE_TABLES) expect(await handle.port.deleteBefore(table, 2_000, 100), table).toBe(1);
      for (const table of EVIDENCE_TABLES) expect(await handle.port.deleteBefore(table, 2_000, 100), table).toBe(0);
      expect(await handle.evidence.sessionIndexOf('default:old:ws')).toEqual([]);
      expect((await handle.evidence.sessionIndexOf('default:edge:ws')).map((row) => row.startedAt)).toEqual([2_000]);
      expect(await handle.evidence.trajectoryOf('default:old:ws')).toEqual([]);
      expect((await handle.evidence.trajectoryOf('default:new:ws')).map((row) => row.ts)).toEqual([3_000]);
      expect((await handle.obs.deliveries({ limit: 10 })).map((row) => row.ts)).toEqual([3_000, 2_000]);
      expect((await handle.obs.diagnostics({ limit: 10 })).rows.map((row) => row.ts)).toEqual([3_000, 2_000]);
      expect((await handle.obs.usageGroups({ sinceMs: 0 }))[0]?.calls).toBe(2);
      expect((await handle.audit.query({ limit: 10 })).map((row) => row.id)).toEqual(['audit-new', 'audit-edge']);
      expect(
        (await handle.evidence.healthSignalsIn({ sinceMs: 0, untilMs: 10_000, limit: 10 })).rows.map((row) => row.ts),
      ).toEqual([2_000, 3_000]);
      expect(await handle.learning.outcome('trace-old')).toBeUndefined();
      expect((await handle.learning.outcome('trace-edge'))?.ts).toBe(2_000);
      expect((await handle.learning.sessionOutcomes('default:new:ws', 10)).map((row) => row.ts)).toEqual([3_000]);
      expect((await handle.learning.uses(PROCEDURE_ID, 10)).map((use) => use.ts)).toEqual([3_000, 2_000]);
      expect(await handle.graphs.run('graph-old')).toBeUndefined();
      expect(await handle.graphs.nodes('graph-old')).toEqual([]);
      expect((await handle.graphs.runs({ limit: 10 })).map((run) => run.runId)).toEqual(['graph-new', 'graph-edge']);
    });

    it('deletes finished graph runs with their node records, never a running run whatever its age nor a definition', async () => {
      await handle.graphs.saveDefinition({
        name: 'release',
        definition: { name: 'release', vars: {}, nodes: [] },
        createdBy: 'admin',
        createdAt: 1,
        updatedAt: 1,
      });
      await recordGraphRun(handle.graphs, { runId: 'live', state: 'running', ts: 500 });
      for (const [index, state] of (['completed', 'failed', 'cancelled', 'orphaned'] as const).entries())
        await recordGraphRun(handle.graphs, { runId: `done-${index}`, state, ts: 1_000 + index });
      await recordGraphRun(handle.graphs, { runId: 'fresh', state: 'failed', ts: 5_000 });
      expect(await handle.port.deleteBefore('graph_runs', 4_000, 3)).toBe(3);
      expect(await handle.graphs.run('done-2')).toBeUndefined();
      expect(await handle.graphs.nodes('done-0')).toEqual([]);
      expect(await handle.port.deleteBefore('graph_runs', 4_000, 3)).toBe(1);
      expect(await handle.port.deleteBefore('graph_runs', 4_000, 3)).toBe(0);
      expect((await handle.graphs.runs({ limit: 10 })).map((run) => run.runId)).toEqual(['fresh', 'live']);
      expect((await handle.graphs.nodes('live')).map((node) => node.nodeId)).toEqual(['ask']);
      expect((await handle.graphs.nodes('fresh')).map((node) => node.nodeId)).toEqual(['ask']);
      expect((await handle.graphs.definitions()).map((graph) => graph.name)).toEqual(['release']);
    });

    it('deletes at most `limit` rows a call, the oldest first', async () => {
      for (let index = 0; index < 5; index += 1) await recordAll(handle, 1_000 + index, `r${index}`);
      expect(await handle.port.deleteBefore('delivery_traces', 10_000, 2)).toBe(2);
      expect((await handle.obs.deliveries({ limit: 10 })).map((row) => row.ts)).toEqual([1_004, 1_003, 1_002]);
      expect(await handle.port.deleteBefore('audit_log', 10_000, 3)).toBe(3);
      expect((await handle.audit.query({ limit: 10 })).map((row) => row.ts)).toEqual([1_004, 1_003]);
      expect(await handle.port.deleteBefore('trajectory', 10_000, 4)).toBe(4);
      expect((await handle.evidence.trajectoryOf('default:r4:ws')).map((row) => row.ts)).toEqual([1_004]);
      expect(await handle.port.deleteBefore('learning_outcomes', 10_000, 2)).toBe(2);
      expect(await handle.learning.outcome('trace-r1')).toBeUndefined();
      expect((await handle.learning.outcome('trace-r2'))?.ts).toBe(1_002);
      expect(await handle.port.deleteBefore('procedure_uses', 10_000, 3)).toBe(3);
      expect((await handle.learning.uses(PROCEDURE_ID, 10)).map((use) => use.ts)).toEqual([1_004, 1_003]);
    });

    it('reports every evidence table with its rows and oldest time, and the database size in bytes', async () => {
      const empty = await handle.port.size();
      expect(empty.tables.map((table) => table.table)).toEqual([...EVIDENCE_TABLES]);
      expect(EVIDENCE_TABLES).toEqual(expect.arrayContaining(['learning_outcomes', 'procedure_uses', 'graph_runs']));
      for (const table of empty.tables) expect(table).toMatchObject({ rows: 0, rowsExact: true, oldestMs: null });
      await recordAll(handle, 1_500, 'a');
      await recordAll(handle, 1_200, 'b');
      const size = await handle.port.size();
      for (const table of size.tables)
        expect(table, table.table).toMatchObject({ rows: 2, rowsExact: true, oldestMs: 1_200 });
      expect(size.databaseBytes).toBeGreaterThan(0);
      expect(['sqlite', 'postgres']).toContain(size.backend);
    });
  });
}
