// obs.fleet.health FleetHealthReport: sessions and causes, findings, ranking, authoring gate, autonomy, cron, determinism.
import { describe, expect, it } from 'vitest';
import { assembleFleetHealth, FLEET_CAPS, HIGH_DEGRADED_RATE } from '../../../src/obs/fleet/index.js';
import type { HealthSignalEvidence, TrajectoryEvidence } from '../../../src/obs/evidence/records.js';
import { fleetEvidence, fleetTurn, NOW, run, signal } from '../fixtures.js';

function sessions(endings: (string | null)[]) {
  const turns = endings.map((ending, n) => fleetTurn(n, ending));
  return { sessions: turns.map((turn) => turn.row), trajectory: turns.map((turn) => turn.end) };
}

const authored = (tier: string, valid: number, invalid: number): HealthSignalEvidence[] => [
  ...Array.from({ length: valid }, () => signal('pipeline_authored', { tier, valid: true })),
  ...Array.from({ length: invalid }, () => signal('pipeline_authored', { tier, valid: false })),
];

describe('obs.fleet.health sessions, activity and tools', () => {
  it('has every field of the spec with schemaVersion 1 and the window', async () => {
    const report = assembleFleetHealth(fleetEvidence(sessions(['completed'])));
    expect(Object.keys(report)).toEqual([
      'schemaVersion',
      'windowHours',
      'sessions',
      'degradedByCause',
      'topErrorKinds',
      'breakerTripTotal',
      'toolStats',
      'cost',
      'activity',
      'findings',
      'likelyRootCause',
      'pipelineAuthoringGate',
      'suggestedNextSteps',
      'truncations',
      'coverage',
    ]);
    expect(report).toMatchObject({ schemaVersion: 1, windowHours: 24, likelyRootCause: { code: 'none' } });
  });

  it('counts degraded sessions by cause; a missing cause folds into unknown', async () => {
    const evidence = sessions(['completed', 'timeout', 'timeout', 'error', 'completed']);
    const unknown = fleetTurn(9, null);
    unknown.row.degraded = true;
    const report = assembleFleetHealth(
      fleetEvidence({ sessions: [...evidence.sessions, unknown.row], trajectory: evidence.trajectory }),
    );
    expect(report.sessions).toEqual({ total: 6, degraded: 4, degradedRate: 0.6667 });
    expect(report.degradedByCause).toEqual({ error: 1, timeout: 2, unknown: 1 });
    expect(report.activity).toMatchObject({
      turnTotal: 6,
      activeAgents: ['default'],
      activeChannels: ['ws'],
      exitReasons: { completed: 2, error: 1, in_progress: 1, timeout: 2 },
    });
  });

  it('counts no client tool hand-off as degraded, even from rows that recorded it so (DESIGN §3)', async () => {
    const evidence = sessions(['tool_calls', 'tool_calls', 'tool_calls', 'tool_calls', 'tool_calls', 'completed']);
    // The fixture rows say degraded: true for tool_calls, as rows written before the hand-off counted as healthy did.
    expect(evidence.sessions.filter((row) => row.degraded)).toHaveLength(5);
    const report = assembleFleetHealth(fleetEvidence(evidence));
    expect(report.sessions).toEqual({ total: 6, degraded: 0, degradedRate: 0 });
    expect(report.degradedByCause).toEqual({});
    expect(report.likelyRootCause.code).toBe('none');
    expect(report.activity.exitReasons).toEqual({ completed: 1, tool_calls: 5 });
  });

  it('counts the session of an orphaned run as degraded with cause orphaned, as the autonomy block does', async () => {
    const open = fleetTurn(1, null);
    open.row.sessionKey = 'default:alice:subagent:r1';
    const stillRunning = fleetTurn(2, null);
    stillRunning.row.sessionKey = 'default:alice:subagent:r2';
    const report = assembleFleetHealth(
      fleetEvidence({
        sessions: [open.row, stillRunning.row],
        trajectory: [],
        runs: [run('r1', 'orphaned'), run('r2', 'running')],
      }),
    );
    expect(report.sessions).toEqual({ total: 2, degraded: 1, degradedRate: 0.5 });
    expect(report.degradedByCause).toEqual({ orphaned: 1 });
    expect(report.activity.exitReasons).toEqual({ in_progress: 1, orphaned: 1 });
    expect(report.autonomy).toMatchObject({ runs: { degraded: 1 }, orphaned: 1 });
  });

  it('judges a session by its latest turn', async () => {
    const first = fleetTurn(1, 'error');
    const second = fleetTurn(2, 'completed');
    second.row.sessionKey = first.row.sessionKey;
    const report = assembleFleetHealth(fleetEvidence({ sessions: [first.row, second.row] }));
    expect(report.sessions).toEqual({ total: 1, degraded: 0, degradedRate: 0 });
    expect(report.activity.turnTotal).toBe(2);
  });

  it('merges tool, model and voice error kinds, and caps them', async () => {
    const trajectory: TrajectoryEvidence[] = [];
    for (let kind = 0; kind < 12; kind += 1) {
      for (let n = 0; n <= kind; n += 1)
        trajectory.push({
          seq: n,
          ts: NOW,
          traceId: 't',
          kind: 'tool_call',
          data: { toolName: 'x', ok: false, errorKind: `k${kind}` },
        });
    }
    trajectory.push({ seq: 1, ts: NOW, traceId: 't', kind: 'model_error', data: { errorKind: 'k0' } });
    const signals = [signal('voice', { outcome: 'failed', errorKind: 'k0' })];
    const report = assembleFleetHealth(fleetEvidence({ trajectory, signals }));
    expect(report.topErrorKinds).toHaveLength(FLEET_CAPS.topErrorKinds);
    expect(report.topErrorKinds[0]).toEqual({ kind: 'k11', count: 12 });
    expect(report.topErrorKinds).toContainEqual({ kind: 'k0', count: 3 });
    expect(report.topErrorKinds.find((entry) => entry.kind === 'k1')).toBeUndefined();
    expect(report.truncations).toContainEqual({ field: 'topErrorKinds', kept: 10, total: 12 });
    expect(report.toolStats).toEqual({ x: { ok: 0, failed: 78, topErrorKind: 'k11' } });
  });

  it('counts breaker trips, cost and coverage', async () => {
    const trajectory: TrajectoryEvidence[] = [
      { seq: 1, ts: NOW, traceId: 't', kind: 'breaker', data: { event: 'opened' } },
      { seq: 2, ts: NOW, traceId: 't', kind: 'breaker', data: { event: 'closed' } },
      { seq: 3, ts: NOW, traceId: 't', kind: 'breaker', data: { event: 'opened' } },
    ];
    const usage = [
      {
        agentId: 'default',
        provider: 'local',
        model: 'm',
        calls: 3,
        inputTokens: 100,
        outputTokens: 50,
        cacheReadTokens: 0,
        costUsd: 0.25,
      },
    ];
    const report = assembleFleetHealth(fleetEvidence({ ...sessions(['completed']), trajectory, usage }));
    expect(report.breakerTripTotal).toBe(2);
    expect(report.cost).toEqual({ costUsd: 0.25, totalTokens: 150 });
    expect(report.coverage).toEqual({
      sessionSummary: { found: true, rows: 1 },
      sessionIndex: { daysRead: 1, daysMissing: 1 },
      billing: { present: true },
    });
  });
});

describe('obs.fleet.health findings', () => {
  it('emits every finding code of the spec from its evidence', async () => {
    const signals = [
      ...Array.from({ length: 3 }, () => signal('health', { code: 'disk_full' }, { severity: 'warning' })),
      ...authored('small', 1, 1),
      signal('orchestrate_run_summary', { runId: 'o', exitCode: 0, estSavedTokens: 500 }),
      signal('cron_wake_gate', { jobId: 'j', wake: false, estTurnsSaved: 1, toolCalls: 1 }, { agentId: 'default' }),
      signal('memory_lifecycle', { scanned: 10, evicted: 2, demoted: 3 }),
      signal('autonomy.killed', { rootRunId: 'r2' }),
      signal('autonomy.denial_breaker', {}, { rootRunId: 'r3' }),
    ];
    const latestPosture = signal('config_posture', {
      providers: [
        { provider: 'local', configuredWindowTokens: 131_072, servedWindowTokens: 8192 },
        { provider: 'cloud', configuredWindowTokens: 1000, servedWindowTokens: 1000 },
      ],
    });
    const report = assembleFleetHealth(
      fleetEvidence({
        signals,
        latestPosture,
        runs: [run('r1', 'orphaned'), run('r4', 'revoked'), run('r5', 'completed')],
      }),
    );
    expect(report.findings.map((finding) => finding.code).sort()).toEqual([
      'autonomy_denial_breaker',
      'autonomy_killed',
      'autonomy_revoked',
      'config_posture:served_below_configured',
      'cron_wake_gate_efficiency',
      'durable_orphaned',
      'fleet_recurring_health_signal',
      'memory_lifecycle',
      'orchestrate_efficiency',
      'pipeline_authoring',
    ]);
    const byCode = Object.fromEntries(report.findings.map((finding) => [finding.code, finding]));
    expect(byCode['config_posture:served_below_configured']).toMatchObject({
      count: 1,
      detail: expect.stringContaining('local'),
    });
    expect(report.findings[0]?.severity).toBe('error');
    expect(report.findings.at(-1)?.severity).toBe('info');
    expect(byCode['orchestrate_efficiency']).toMatchObject({
      severity: 'info',
      count: 1,
      detail: expect.stringContaining('500 tokens'),
    });
    expect(byCode['memory_lifecycle']).toMatchObject({
      count: 1,
      detail: '1 lifecycle sweep(s): 2 evicted, 3 demoted.',
    });
    expect(byCode['pipeline_authoring']).toMatchObject({
      count: 1,
      detail: 'small: 1 of 2 failed validation (50.0%).',
    });
    const withVoice = assembleFleetHealth(
      fleetEvidence({
        signals: [
          signal('voice', { outcome: 'failed', errorKind: 'timeout' }),
          signal('voice', { outcome: 'failed', errorKind: 'network' }),
          signal('voice', { outcome: 'failed', errorKind: 'network' }),
        ],
      }),
    );
    expect(withVoice.findings).toEqual([
      expect.objectContaining({
        code: 'voice_health',
        count: 3,
        detail: '3 degraded voice turn(s); dominant errorKind network.',
      }),
    ]);
  });

  it(`caps findings at ${FLEET_CAPS.findings}, most severe first, and lists the cut`, async () => {
    const signals = Array.from({ length: 12 }, (_, n) =>
      Array.from({ length: 3 }, () => signal('health', { code: `c${n}` }, { severity: 'warning' })),
    ).flat();
    const report = assembleFleetHealth(fleetEvidence({ signals }));
    expect(report.findings).toHaveLength(FLEET_CAPS.findings);
    expect(report.truncations).toContainEqual({ field: 'findings', kept: 10, total: 12 });
  });

  it('routine session_rebase continuations ingest at info and never count as a recurring warning', async () => {
    const rebases = Array.from({ length: 5 }, () => signal('session_rebase', {}, { severity: 'info' }));
    const infoHealth = Array.from({ length: 5 }, () =>
      signal('health', { code: 'session_rebase' }, { severity: 'info' }),
    );
    expect(assembleFleetHealth(fleetEvidence({ signals: [...rebases, ...infoHealth] })).findings).toEqual([]);
    const twice = Array.from({ length: 2 }, () => signal('health', { code: 'x' }, { severity: 'error' }));
    expect(assembleFleetHealth(fleetEvidence({ signals: twice })).findings).toEqual([]);
  });

  it('a malformed posture row folds to zero and never fails the assembly', async () => {
    for (const data of [
      {},
      { providers: 'lots' },
      { providers: [null, 7, { provider: 'x', configuredWindowTokens: 'big', servedWindowTokens: -1 }] },
    ]) {
      const report = assembleFleetHealth(fleetEvidence({ latestPosture: signal('config_posture', data) }));
      expect(report.findings).toEqual([]);
      expect(report.likelyRootCause.code).toBe('none');
    }
  });

  it('a malformed voice health row folds to zero', async () => {
    const report = assembleFleetHealth(
      fleetEvidence({ signals: [signal('voice', { outcome: 3, errorKind: {} }), signal('voice', {})] }),
    );
    expect(report.findings).toEqual([]);
    expect(report.topErrorKinds).toEqual([]);
  });
});

describe('obs.fleet.health likelyRootCause ranking', () => {
  const posture = signal('config_posture', {
    providers: [{ provider: 'local', configuredWindowTokens: 100, servedWindowTokens: 50 }],
  });
  const recurring = Array.from({ length: 3 }, () => signal('health', { code: 'disk_full' }, { severity: 'warning' }));

  it('fleet_autonomy_degradation first, naming the worst root run', async () => {
    const report = assembleFleetHealth(
      fleetEvidence({
        ...sessions(['error', 'error', 'error', 'error', 'error']),
        latestPosture: posture,
        runs: [run('r1', 'revoked'), run('r2', 'orphaned')],
      }),
    );
    expect(report.likelyRootCause).toMatchObject({
      code: 'fleet_autonomy_degradation',
      detail: expect.stringContaining('worst root run r2'),
    });
  });

  it(`fleet_high_degraded_rate at ${HIGH_DEGRADED_RATE * 100}% over at least 5 sessions, above acute degradation`, async () => {
    const spike = assembleFleetHealth(
      fleetEvidence(
        sessions([
          'timeout',
          'timeout',
          'completed',
          'completed',
          'completed',
          'completed',
          'completed',
          'error',
          'completed',
          'completed',
        ]),
      ),
    );
    expect(spike.sessions.degradedRate).toBe(0.3);
    expect(spike.likelyRootCause.code).toBe('fleet_high_degraded_rate');
    const below = assembleFleetHealth(
      fleetEvidence(
        sessions([
          'timeout',
          'timeout',
          'completed',
          'completed',
          'completed',
          'completed',
          'completed',
          'completed',
          'completed',
          'completed',
        ]),
      ),
    );
    expect(below.likelyRootCause).toMatchObject({
      code: 'fleet_acute_degradation',
      detail: expect.stringContaining('dominant cause timeout (2)'),
    });
    const few = assembleFleetHealth(fleetEvidence(sessions(['error', 'error', 'completed'])));
    expect(few.likelyRootCause.code).toBe('fleet_acute_degradation');
  });

  it('fleet_acute_degradation outranks config posture, which outranks a recurring signal', async () => {
    expect(
      assembleFleetHealth(
        fleetEvidence({
          ...sessions(['error', 'completed', 'completed', 'completed', 'completed', 'completed']),
          latestPosture: posture,
          signals: recurring,
        }),
      ).likelyRootCause.code,
    ).toBe('fleet_acute_degradation');
    expect(
      assembleFleetHealth(fleetEvidence({ latestPosture: posture, signals: recurring })).likelyRootCause.code,
    ).toBe('fleet_config_posture');
    expect(assembleFleetHealth(fleetEvidence({ signals: recurring })).likelyRootCause.code).toBe(
      'fleet_recurring_health_signal',
    );
  });
});

describe('obs.fleet.health pipelineAuthoringGate', () => {
  const gate = (signals: HealthSignalEvidence[]) =>
    assembleFleetHealth(fleetEvidence({ signals })).pipelineAuthoringGate;

  it('is false with an insufficient-telemetry reason when nothing was authored', async () => {
    expect(gate([])).toEqual({
      buildAuthor: false,
      reason: 'insufficient_telemetry: no pipeline authoring rows in the window',
    });
  });

  it('needs 20 small-tier invocations: 19 is not enough', async () => {
    expect(gate([...authored('small', 9, 10), ...authored('frontier', 20, 0)])).toEqual({
      buildAuthor: false,
      reason: expect.stringMatching(/^insufficient_telemetry: 19 small-tier/),
    });
    expect(gate([...authored('small', 10, 10), ...authored('frontier', 20, 0)])).toMatchObject({ buildAuthor: true });
  });

  it('needs a 15-point validity gap: 14 is not enough, exactly 15 is', async () => {
    // frontier 100%; small 86% (14 points) vs 85% (15 points), over 100 small-tier invocations.
    expect(gate([...authored('small', 86, 14), ...authored('frontier', 10, 0)])).toMatchObject({
      buildAuthor: false,
      reason: expect.stringMatching(/^gap_below_15_points/),
    });
    expect(gate([...authored('small', 85, 15), ...authored('frontier', 10, 0)])).toMatchObject({
      buildAuthor: true,
      reason: expect.stringMatching(/^gap_at_least_15_points/),
    });
  });

  it('counts nano authorings as small tier and needs a frontier baseline', async () => {
    expect(gate([...authored('small', 5, 5), ...authored('nano', 0, 10), ...authored('frontier', 4, 0)])).toMatchObject(
      { buildAuthor: true },
    );
    expect(gate(authored('small', 0, 20))).toEqual({
      buildAuthor: false,
      reason: 'insufficient_telemetry: no frontier-tier authorings to compare with',
    });
  });
});

describe('obs.fleet.health autonomy and cron blocks', () => {
  it('leaves out the autonomy block when no durable store is wired', async () => {
    expect(
      assembleFleetHealth(fleetEvidence({ signals: [signal('autonomy.killed', { rootRunId: 'r' })] })).autonomy,
    ).toBeUndefined();
  });

  it('counts degraded as orphaned plus revoked, killed and resumed from signals, and orders the worst run', async () => {
    const runs = [run('a', 'revoked'), run('b', 'completed'), run('c', 'orphaned'), run('d', 'running')];
    const signals = [
      signal('autonomy.killed', { rootRunId: 'k' }),
      signal('autonomy.resumed', { rootRunId: 'c' }),
      signal('autonomy.breaker_trip', { rootRunId: 'b' }),
      signal('autonomy.denial_breaker', {}, { rootRunId: 'z' }),
      signal('autonomy.budget_breach', { rootRunId: 'b' }),
    ];
    expect(assembleFleetHealth(fleetEvidence({ runs, signals })).autonomy).toEqual({
      runs: { total: 4, degraded: 2, degradedRate: 0.5 },
      orphaned: 1,
      resumed: 1,
      revoked: 1,
      killed: 1,
      breakerTrips: 1,
      denialBreakerTrips: 1,
      budgetBreaches: 1,
      costUsd: 0.04,
      worstRootRunId: 'c',
    });
    const noOrphan = assembleFleetHealth(
      fleetEvidence({ runs: runs.filter((entry) => entry.status !== 'orphaned'), signals }),
    );
    expect(noOrphan.autonomy?.worstRootRunId).toBe('z');
    const killedOnly = assembleFleetHealth(
      fleetEvidence({ runs: [run('a', 'revoked')], signals: [signal('autonomy.killed', { rootRunId: 'k' })] }),
    );
    expect(killedOnly.autonomy?.worstRootRunId).toBe('k');
    expect(assembleFleetHealth(fleetEvidence({ runs: [run('a', 'completed')] })).autonomy).not.toHaveProperty(
      'worstRootRunId',
    );
  });

  it('cronWakeGate: fires, skip and fail-open rates, per agent; absent without gated fires', async () => {
    const signals = [
      signal(
        'cron_wake_gate',
        { jobId: 'j1', wake: false, failedOpen: false, toolCalls: 1, estTurnsSaved: 1 },
        { agentId: 'b' },
      ),
      signal(
        'cron_wake_gate',
        { jobId: 'j1', wake: true, failedOpen: true, toolCalls: 2, estTurnsSaved: 0 },
        { agentId: 'b' },
      ),
      signal('cron_wake_gate', { jobId: 'j2', wake: false, toolCalls: 1, estTurnsSaved: 1 }, { agentId: 'a' }),
    ];
    const report = assembleFleetHealth(fleetEvidence({ signals }));
    expect(report.cronWakeGate).toEqual({
      fires: { total: 3, skipped: 2, skipRate: 0.6667, failedOpen: 1, failOpenRate: 0.3333 },
      turnsSaved: 2,
      toolCalls: 4,
      perAgent: [
        {
          agentId: 'a',
          fires: 1,
          skipped: 1,
          skipRate: 1,
          failedOpen: 0,
          failOpenRate: 0,
          turnsSaved: 1,
          toolCalls: 1,
        },
        {
          agentId: 'b',
          fires: 2,
          skipped: 1,
          skipRate: 0.5,
          failedOpen: 1,
          failOpenRate: 0.5,
          turnsSaved: 1,
          toolCalls: 3,
        },
      ],
    });
    expect(report.findings).toContainEqual(
      expect.objectContaining({ code: 'cron_wake_gate_efficiency', severity: 'warning', count: 3 }),
    );
    expect(assembleFleetHealth(fleetEvidence()).cronWakeGate).toBeUndefined();
  });
});

describe('obs.fleet.health determinism', () => {
  it('gives byte-identical JSON for the same evidence, whatever its order', async () => {
    const base = sessions(['error', 'timeout', 'completed', 'completed_with_tool_errors', 'completed']);
    const signals = [
      ...authored('small', 3, 2),
      signal('health', { code: 'a' }, { severity: 'warning' }),
      signal('cron_wake_gate', { wake: false }, { agentId: 'x' }),
    ];
    const evidence = fleetEvidence({ ...base, signals, runs: [run('r1', 'orphaned'), run('r2', 'revoked')] });
    const first = JSON.stringify(assembleFleetHealth(evidence));
    expect(JSON.stringify(assembleFleetHealth(evidence))).toBe(first);
    const reversed = {
      ...evidence,
      sessions: [...evidence.sessions].reverse(),
      trajectory: [...evidence.trajectory].reverse(),
      signals: [...signals].reverse(),
      runs: [run('r2', 'revoked'), run('r1', 'orphaned')],
    };
    expect(JSON.stringify(assembleFleetHealth(reversed))).toBe(first);
  });
});
