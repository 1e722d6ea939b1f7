// obs.explain IncidentReport: top-level fields, optional blocks and their presence rules, determinism, and bounding.
import { describe, expect, it } from 'vitest';
import { assembleIncidentReport, SUMMARY_MAX_BYTES, type IncidentReport } from '../../../src/obs/explain/index.js';
import { SESSION, sessionEvidence, TrajectoryBuilder } from '../fixtures.js';

const report = (builder: TrajectoryBuilder, depth: 'summary' | 'full' = 'summary'): IncidentReport =>
  assembleIncidentReport(sessionEvidence(builder.records), { depth });

describe('obs.explain report fields', () => {
  it('has every top-level field of the spec, in order, with cost, timing and tool stats', async () => {
    const builder = new TrajectoryBuilder()
      .turn('completed', (t) => t.tool('search', true).tool('fetch', false, 'timeout'))
      .turn('completed_with_tool_errors', (t) =>
        t
          .tool('fetch', false, 'failed')
          .tool('fetch', false, 'timeout')
          .add('breaker', { step: 1, event: 'opened', toolName: 'fetch' }),
      );
    const result = report(builder);
    expect(Object.keys(result).slice(0, 16)).toEqual([
      'schemaVersion',
      'sessionKey',
      'traceId',
      'agentId',
      'channel',
      'outcome',
      'cost',
      'timing',
      'toolStats',
      'failures',
      'breakerTimeline',
      'offloads',
      'summary',
      'likelyRootCause',
      'suggestedNextSteps',
      'truncations',
    ]);
    expect(result).toMatchObject({
      schemaVersion: 1,
      sessionKey: SESSION,
      traceId: 'trace-1',
      agentId: 'default',
      channel: 'ws',
      outcome: { endReason: 'completed_with_tool_errors', degraded: true, severity: 'warning' },
      cost: { costUsd: 0.002, totalTokens: 240, cacheReadRatio: 0.4 },
      timing: { durationMs: 500, turnCount: 2 },
      toolStats: {
        fetch: { ok: 0, failed: 3, topErrorKind: 'timeout' },
        search: { ok: 1, failed: 0, topErrorKind: null },
      },
      breakerTimeline: [{ seq: expect.any(Number), event: 'opened', toolName: 'fetch' }],
      offloads: [],
      truncations: [],
    });
    expect(result.suggestedNextSteps).toEqual(
      expect.arrayContaining([expect.stringContaining('circuit breaker opened')]),
    );
    expect(result.summary).toContain('3 of 4 tool call(s) failed');
  });

  it('lists failures newest first with digests and a preview built from counts, never raw output', async () => {
    const builder = new TrajectoryBuilder().turn('completed_with_tool_errors', (t) =>
      t.tool('a', false, 'failed', { output: 'SECRET RAW OUTPUT' }).tool('b', false, 'timeout'),
    );
    const { failures } = report(builder);
    expect(failures.map((failure) => failure.toolName)).toEqual(['b', 'a']);
    expect(failures[0]).toEqual({
      seq: expect.any(Number),
      toolName: 'b',
      errorKind: 'timeout',
      resultDigest: 'sha256:0000000000000001',
      resultBytes: 42,
      errorPreview: 'timeout after 7 ms; 42 bytes of output, fingerprint sha256:0000000000000001',
    });
    expect(JSON.stringify(report(builder, 'full'))).not.toContain('SECRET RAW OUTPUT');
  });

  it('reports an open last turn as in_progress', async () => {
    const builder = new TrajectoryBuilder().turn('error').add('turn_start', { agentId: 'default', channel: 'ws' });
    expect(report(builder).outcome).toEqual({ endReason: 'in_progress', degraded: false, severity: 'info' });
  });

  it('reports an open last turn whose durable run a restart orphaned as orphaned and degraded, not in_progress', async () => {
    const builder = new TrajectoryBuilder().add('turn_start', { agentId: 'default', channel: 'ws' });
    const runs = [
      {
        runId: 'r1',
        rootRunId: 'r1',
        parentKey: 'default:alice:parent',
        sessionKey: SESSION,
        agentId: 'default',
        status: 'orphaned',
        startedAt: 10,
        costUsd: 0,
      },
    ];
    const result = assembleIncidentReport(sessionEvidence(builder.records, { runs }));
    expect(result.outcome).toEqual({ endReason: 'orphaned', degraded: true, severity: 'error' });
    expect(result.likelyRootCause.code).toBe('orphaned');
    // A run of the tree that is still running, or an orphan of another session, leaves the turn in progress.
    const elsewhere = runs.map((entry) => ({ ...entry, sessionKey: 'default:alice:subagent:other' }));
    expect(assembleIncidentReport(sessionEvidence(builder.records, { runs: elsewhere })).outcome.endReason).toBe(
      'in_progress',
    );
    const running = runs.map((entry) => ({ ...entry, status: 'running' }));
    expect(assembleIncidentReport(sessionEvidence(builder.records, { runs: running })).outcome.endReason).toBe(
      'in_progress',
    );
  });

  it('lists offloads with diskPathRel and counts resolved pointers in coverage', async () => {
    const builder = new TrajectoryBuilder().turn('completed', (t) =>
      t
        .add('offload', {
          toolName: 'fetch',
          diskPathRel: 'offloads/s1/1.json',
          bytes: 90_000,
          digest: 'sha256:ab',
          resolved: true,
        })
        .add('offload', { toolName: 'fetch', diskPathRel: 'offloads/s1/2.json', bytes: 10, resolved: false }),
    );
    const result = report(builder);
    expect(result.offloads[0]).toEqual({
      seq: expect.any(Number),
      toolName: 'fetch',
      diskPathRel: 'offloads/s1/1.json',
      bytes: 90_000,
      digest: 'sha256:ab',
      resolved: true,
    });
    expect(result.coverage?.offloads).toEqual({ pointersResolved: 1, pointersTotal: 2 });
  });
});

describe('obs.explain optional blocks', () => {
  it('contextBudget only when the run ended context_exhausted and budget records exist; the last record wins', async () => {
    const budget = (assembled: number) => ({
      windowTokens: 1000,
      systemTokens: 50,
      freshTailTokens: 10,
      budgetedHistoryTokens: 0,
      keptCount: 0,
      droppedCount: 3,
      assembledInputTokens: assembled,
      outputHeadroom: 100,
      verdict: 'exhausted',
    });
    const exhausted = report(
      new TrajectoryBuilder().turn('context_exhausted', (t) =>
        t.add('context_budget', budget(900)).add('context_budget', budget(1200)),
      ),
    );
    expect(exhausted.contextBudget).toEqual({
      windowTokens: 1000,
      rawContextWindowTokens: 1000,
      windowCapSource: 'none',
      systemTokens: 50,
      freshTailTokens: 10,
      budgetedHistoryTokens: 0,
      keptCount: 0,
      assembledInputTokens: 1200,
      outputHeadroom: 100,
      verdict: 'exhausted',
    });
    expect(
      report(new TrajectoryBuilder().turn('completed', (t) => t.add('context_budget', budget(10)))).contextBudget,
    ).toBeUndefined();
    expect(report(new TrajectoryBuilder().turn('context_exhausted')).contextBudget).toBeUndefined();
    const served = report(
      new TrajectoryBuilder().turn('context_exhausted', (t) =>
        t.add('context_budget', { ...budget(5), rawContextWindowTokens: 8000, windowCapSource: 'served' }),
      ),
    );
    expect(served.contextBudget).toMatchObject({ rawContextWindowTokens: 8000, windowCapSource: 'served' });
  });

  it('recall: counts and booleans only; crossUserRecalls only when above zero', async () => {
    const plain = report(
      new TrajectoryBuilder().turn('completed', (t) =>
        t
          .add('recall', { lanes: ['fts', 'vector'], finalCount: 0, rerankerAvailable: false })
          .add('recall', { lanes: 3, finalCount: 4, rerankerAvailable: true }),
      ),
    );
    expect(plain.recall).toEqual({ recalls: 2, zeroHits: 1, lastLanes: 3, lastFinalCount: 4, rerankerAvailable: true });
    const cross = report(
      new TrajectoryBuilder().turn('completed', (t) => t.add('recall', { lanes: 1, finalCount: 2, crossUserCount: 2 })),
    );
    expect(cross.recall).toMatchObject({ crossUserRecalls: 1, lastCrossUserCount: 2 });
    expect(report(new TrajectoryBuilder().turn('completed')).recall).toBeUndefined();
  });

  it('voice: costUsd 0 for a keyless turn, omitted for a keyed one; errorKind on failure', async () => {
    const keyless = report(
      new TrajectoryBuilder().turn('completed', (t) =>
        t.add('voice', {
          provider: 'pocketsphinx',
          keyless: true,
          durationMs: 900,
          source: 'keyless-local',
          outcome: 'ok',
        }),
      ),
    );
    expect(keyless.voice).toEqual({
      provider: 'pocketsphinx',
      keyless: true,
      durationMs: 900,
      costUsd: 0,
      source: 'keyless-local',
      outcome: 'ok',
    });
    const keyed = report(
      new TrajectoryBuilder().turn('completed', (t) =>
        t.add('voice', {
          provider: 'openai',
          keyless: false,
          model: 'whisper-1',
          costUsd: 0.01,
          source: 'explicit',
          outcome: 'failed',
          errorKind: 'auth_required',
        }),
      ),
    );
    expect(keyed.voice).toEqual({
      provider: 'openai',
      keyless: false,
      model: 'whisper-1',
      source: 'explicit',
      outcome: 'failed',
      errorKind: 'auth_required',
    });
  });

  it('a malformed voice row folds to zero and never fails the assembly', async () => {
    const builder = new TrajectoryBuilder().turn('completed', (t) =>
      t.add('voice', {
        provider: 42,
        keyless: 'yes',
        durationMs: 'long',
        source: 'nowhere',
        outcome: 'maybe',
        errorKind: 7,
      }),
    );
    expect(report(builder).voice).toEqual({ provider: 'unknown', keyless: false, outcome: 'ok' });
    const records = new TrajectoryBuilder().turn('completed').records;
    records.push({ seq: 99, ts: 99, traceId: 'trace-1', kind: 'voice', data: {} });
    expect(() => assembleIncidentReport(sessionEvidence(records))).not.toThrow();
  });

  it('learning: sources deduplicated in canonical order; lifecycle counts only when recorded', async () => {
    const result = report(
      new TrajectoryBuilder().turn('completed', (t) =>
        t
          .add('learning_outcome', { outcome: 'corrected', sources: ['judge', 'tool', 'judge', 'bogus'] })
          .add('learning_skill', { ok: true })
          .add('learning_skill', { ok: false })
          .add('learning_lifecycle', { promoted: 1, demoted: 2, failuresAttributed: 3 }),
      ),
    );
    expect(result.learning).toEqual({
      outcomeResolved: true,
      outcome: 'corrected',
      sources: ['tool', 'judge'],
      skillsUsed: 2,
      skillFailures: 1,
      synthesisAbstained: false,
      skillsPromoted: 1,
      skillsDemoted: 2,
      failuresAttributed: 3,
    });
    const unresolved = report(
      new TrajectoryBuilder().turn('completed', (t) => t.add('learning_synthesis', { abstained: true })),
    );
    expect(unresolved.learning).toEqual({
      outcomeResolved: false,
      sources: [],
      skillsUsed: 0,
      skillFailures: 0,
      synthesisAbstained: true,
    });
  });

  it('orchestrate: outcome from exitCode, tool calls attributed by the run’s own lease, savings', async () => {
    const result = report(
      new TrajectoryBuilder().turn('completed', (t) =>
        t
          .add('orchestrate_run', {
            runId: 'r1',
            leaseId: 'L1',
            exitCode: 0,
            durationMs: 300,
            resultRefs: { count: 2, bytes: 512 },
            savings: { estSavedTokens: 4000, savedRatio: 0.61234 },
          })
          .add('orchestrate_run', {
            runId: 'r2',
            leaseId: 'L2',
            exitCode: 124,
            durationMs: 9000,
            failureClass: 'timeout',
          })
          .add('capability_audited', { leaseId: 'L1', tool: 'http.get', capability: 'net', decision: 'allow' })
          .add('capability_audited', { leaseId: 'L1', tool: 'http.get', capability: 'net', decision: 'allow' })
          .add('capability_audited', { leaseId: 'L2', tool: 'fs.write', capability: 'fs', decision: 'deny' }),
      ),
    );
    expect(result.orchestrate).toEqual([
      {
        runId: 'r1',
        leaseId: 'L1',
        outcome: 'success',
        durationMs: 300,
        exitCode: 0,
        toolCalls: [{ tool: 'http.get', capability: 'net', decision: 'allow', count: 2 }],
        resultRefs: { count: 2, bytes: 512 },
        savings: { estSavedTokens: 4000, savedRatio: 0.6123 },
      },
      {
        runId: 'r2',
        leaseId: 'L2',
        outcome: 'failure',
        durationMs: 9000,
        exitCode: 124,
        failureClass: 'timeout',
        toolCalls: [{ tool: 'fs.write', capability: 'fs', decision: 'deny', count: 1 }],
        resultRefs: { count: 0, bytes: 0 },
      },
    ]);
    expect(report(new TrajectoryBuilder().turn('completed')).orchestrate).toBeUndefined();
  });

  it('cronWakeGate only when a gated fire woke the model inside the session', async () => {
    const woke = report(
      new TrajectoryBuilder().turn('completed', (t) =>
        t.add('cron_wake_gate', { jobId: 'j1', wake: true, durationMs: 40, toolCalls: 2, estTurnsSaved: 0 }),
      ),
    );
    expect(woke.cronWakeGate).toEqual({ jobId: 'j1', wake: true, durationMs: 40, toolCalls: 2, estTurnsSaved: 0 });
    expect(
      report(new TrajectoryBuilder().turn('completed', (t) => t.add('cron_wake_gate', { jobId: 'j1', wake: false })))
        .cronWakeGate,
    ).toBeUndefined();
  });

  it('coverage reconciles the persisted rollup against the trajectory', async () => {
    const ok = report(
      new TrajectoryBuilder().turn('completed', (t) =>
        t
          .tool('a', true)
          .tool('a', false, 'failed')
          .add('tool_rollup', { tools: { a: { ok: 1, failed: 1 } } }),
      ),
    );
    expect(ok.coverage).toEqual({
      trajectory: { found: true, records: 6 },
      rollup: { present: true },
      offloads: { pointersResolved: 0, pointersTotal: 0 },
      sources: { session: 'sqlite:session_index', trajectory: 'sqlite:trajectory' },
      toolStats: {
        reconciled: true,
        rollupSource: expect.stringMatching(/^trajectory:tool_rollup#/),
        divergentTools: [],
      },
    });
    const diverged = report(
      new TrajectoryBuilder().turn('completed', (t) =>
        t.tool('a', true).add('tool_rollup', { tools: { a: { ok: 2, failed: 0 }, ghost: { ok: 1, failed: 0 } } }),
      ),
    );
    expect(diverged.coverage?.toolStats).toMatchObject({
      reconciled: false,
      divergentTools: [
        { tool: 'a', rollup: { ok: 2, failed: 0 }, trajectory: { ok: 1, failed: 0 } },
        { tool: 'ghost', rollup: { ok: 1, failed: 0 }, trajectory: { ok: 0, failed: 0 } },
      ],
    });
    expect(report(new TrajectoryBuilder().turn('completed')).coverage?.toolStats).toEqual({
      reconciled: true,
      rollupSource: 'none',
      divergentTools: [],
    });
  });

  it('renders the spawn tree of the session’s durable runs', async () => {
    const runs = [
      {
        runId: 'child',
        rootRunId: 'root',
        parentKey: 'default:alice:subagent:root',
        sessionKey: 'default:alice:subagent:child',
        agentId: 'helper',
        status: 'completed',
        startedAt: 20,
        costUsd: 0,
      },
      {
        runId: 'root',
        rootRunId: 'root',
        parentKey: SESSION,
        sessionKey: 'default:alice:subagent:root',
        agentId: 'default',
        status: 'orphaned',
        startedAt: 10,
        costUsd: 0,
      },
    ];
    const result = assembleIncidentReport(sessionEvidence(new TrajectoryBuilder().turn('completed').records, { runs }));
    expect(result.spawnTree).toEqual({
      rootRunId: 'root',
      runs: [
        {
          runId: 'root',
          parentKey: SESSION,
          sessionKey: 'default:alice:subagent:root',
          agentId: 'default',
          status: 'orphaned',
          depth: 0,
        },
        {
          runId: 'child',
          parentKey: 'default:alice:subagent:root',
          sessionKey: 'default:alice:subagent:child',
          agentId: 'helper',
          status: 'completed',
          depth: 1,
        },
      ],
    });
  });
});

describe('obs.explain determinism and bounds', () => {
  const busy = () => {
    const builder = new TrajectoryBuilder();
    for (let turn = 0; turn < 30; turn += 1) {
      builder.turn('completed_with_tool_errors', (t) => {
        for (let call = 0; call < 10; call += 1) t.tool(`tool_${call}_${'x'.repeat(60)}`, call % 3 === 0, 'timeout');
        t.add('breaker', { step: 1, event: 'opened', toolName: `tool_${turn}` }).add('offload', {
          diskPathRel: `offloads/${turn}.json`,
          bytes: 1,
          resolved: true,
        });
      });
    }
    return builder;
  };

  it('gives byte-identical JSON for the same records, whatever their input order', async () => {
    const records = busy().records;
    const first = JSON.stringify(assembleIncidentReport(sessionEvidence(records)));
    const shuffled = [...records].reverse();
    expect(JSON.stringify(assembleIncidentReport(sessionEvidence(records)))).toBe(first);
    expect(JSON.stringify(assembleIncidentReport(sessionEvidence(shuffled)))).toBe(first);
  });

  it(`bounds depth summary to ${SUMMARY_MAX_BYTES} bytes and lists what was dropped`, async () => {
    const summary = report(busy());
    expect(Buffer.byteLength(JSON.stringify(summary))).toBeLessThanOrEqual(SUMMARY_MAX_BYTES);
    const failures = summary.truncations.find((entry) => entry.field === 'failures');
    expect(failures).toEqual({ field: 'failures', kept: summary.failures.length, total: 180 });
    expect(summary.truncations.find((entry) => entry.field === 'breakerTimeline')).toMatchObject({ total: 30 });
    expect(summary.summary).toContain('180 of 300 tool call(s) failed');
  });

  it('depth full relaxes the caps', async () => {
    const full = report(busy(), 'full');
    expect(full.failures).toHaveLength(180);
    expect(full.breakerTimeline).toHaveLength(30);
    expect(full.offloads).toHaveLength(30);
    expect(full.truncations).toEqual([]);
    expect(Buffer.byteLength(JSON.stringify(full))).toBeGreaterThan(SUMMARY_MAX_BYTES);
  });

  it('lists the loader’s trajectory row cap in truncations', async () => {
    const evidence = sessionEvidence(new TrajectoryBuilder().turn('completed').records, {
      trajectoryCap: { kept: 3, total: 30_000 },
    });
    expect(assembleIncidentReport(evidence).truncations).toEqual([{ field: 'trajectory', kept: 3, total: 30_000 }]);
  });
});
