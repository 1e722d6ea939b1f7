// obs.explain likelyRootCause: one fixture trajectory per code, and the spec's precedence conflicts.
import { describe, expect, it } from 'vitest';
import { assembleIncidentReport } from '../../../src/obs/explain/index.js';
import { sessionEvidence, TrajectoryBuilder } from '../fixtures.js';

const causeOf = (builder: TrajectoryBuilder) =>
  assembleIncidentReport(sessionEvidence(builder.records)).likelyRootCause;

describe('obs.explain likelyRootCause', () => {
  it('names no cause for a healthy session', async () => {
    const report = assembleIncidentReport(
      sessionEvidence(new TrajectoryBuilder().turn('completed', (t) => t.tool('search', true)).records),
    );
    expect(report.likelyRootCause).toEqual({ code: 'none', detail: expect.any(String), suggestedNextSteps: [] });
    expect(report.outcome).toEqual({ endReason: 'completed', degraded: false, severity: 'info' });
  });

  it('completed_with_tool_errors when a completed turn had failing tools', async () => {
    const cause = causeOf(
      new TrajectoryBuilder().turn('completed_with_tool_errors', (t) =>
        t.tool('fetch', false, 'failed').tool('fetch', true),
      ),
    );
    expect(cause.code).toBe('completed_with_tool_errors');
    expect(cause.detail).toContain('1 of 2 tool call(s) failed');
    expect(cause.detail).toContain('fetch');
  });

  it('a tool failure outranks the timeout degradation cause (rule 1)', async () => {
    const builder = new TrajectoryBuilder().turn('timeout', (t) =>
      t.tool('fetch', false, 'timeout').add('prompt_timeout', { phase: 'stall', elapsedMs: 30_000, budgetMs: 30_000 }),
    );
    expect(causeOf(builder).code).toBe('tool_failure');
  });

  it('a tool failure outranks context_exhausted and output_starved', async () => {
    expect(causeOf(new TrajectoryBuilder().turn('context_exhausted', (t) => t.tool('x', false, 'failed'))).code).toBe(
      'tool_failure',
    );
    expect(causeOf(new TrajectoryBuilder().turn('output_starved', (t) => t.tool('x', false, 'failed'))).code).toBe(
      'tool_failure',
    );
  });

  it('content_heuristic_misclassification when every failure was decided by a content heuristic', async () => {
    const builder = new TrajectoryBuilder().turn('completed_with_tool_errors', (t) =>
      t.tool('grep', false, 'failed', { classifiedBy: 'content_heuristic' }),
    );
    expect(causeOf(builder).code).toBe('content_heuristic_misclassification');
    const mixed = new TrajectoryBuilder().turn('completed_with_tool_errors', (t) =>
      t.tool('grep', false, 'failed', { classifiedBy: 'content_heuristic' }).tool('grep', false, 'timeout'),
    );
    expect(causeOf(mixed).code).toBe('completed_with_tool_errors');
  });

  it('prompt_timeout is numbers-backed when the enriched record exists', async () => {
    const cause = causeOf(
      new TrajectoryBuilder().turn('timeout', (t) =>
        t.add('prompt_timeout', {
          phase: 'stall',
          elapsedMs: 45_000,
          budgetMs: 30_000,
          knob: 'agents.default.promptStallMs',
        }),
      ),
    );
    expect(cause.code).toBe('prompt_timeout');
    expect(cause.detail).toContain('45000 ms');
    expect(cause.evidence).toEqual({ phase: 'stall', elapsedMs: 45_000, budgetMs: 30_000 });
    expect(cause.suggestedNextSteps[0]).toContain('agents.default.promptStallMs above 30000 ms');
  });

  it('prompt_timeout falls back to a generic knob suggestion without the enriched record', async () => {
    const cause = causeOf(new TrajectoryBuilder().turn('timeout'));
    expect(cause.code).toBe('prompt_timeout');
    expect(cause.evidence).toBeUndefined();
    expect(cause.suggestedNextSteps[0]).toContain('stall budget or makespan ceiling');
  });

  it('prompt_timeout also for a turn whose model call hit the provider timeout', async () => {
    const timedOut = causeOf(
      new TrajectoryBuilder().turn('error', (t) =>
        t.add('model_error', { step: 1, errorKind: 'upstream_failed', providerErrorKind: 'timeout' }),
      ),
    );
    expect(timedOut.code).toBe('prompt_timeout');
    const other = causeOf(
      new TrajectoryBuilder().turn('error', (t) =>
        t.add('model_error', { step: 1, errorKind: 'upstream_failed', providerErrorKind: 'server' }),
      ),
    );
    expect(other).toMatchObject({
      code: 'error',
      detail: expect.stringContaining('Last model error: upstream_failed: server.'),
    });
  });

  it('context_exhausted and output_starved explain the terminal state when no tool failed', async () => {
    const exhausted = causeOf(
      new TrajectoryBuilder().turn('context_exhausted', (t) =>
        t.add('context_budget', {
          windowTokens: 1000,
          assembledInputTokens: 1200,
          outputHeadroom: 100,
          verdict: 'exhausted',
        }),
      ),
    );
    expect(exhausted.code).toBe('context_exhausted');
    expect(exhausted.detail).toContain('1200 input tokens plus 100 output headroom exceed the 1000-token window');
    expect(causeOf(new TrajectoryBuilder().turn('output_starved')).code).toBe('output_starved');
  });

  it('recall_miss for a degraded session whose every recall missed', async () => {
    const builder = new TrajectoryBuilder().turn('max_steps', (t) =>
      t.add('recall', { lanes: 2, finalCount: 0 }).add('recall', { lanes: 2, finalCount: 0 }),
    );
    expect(causeOf(builder).code).toBe('recall_miss');
    const partial = new TrajectoryBuilder().turn('max_steps', (t) =>
      t.add('recall', { finalCount: 0 }).add('recall', { finalCount: 3 }),
    );
    expect(causeOf(partial).code).toBe('max_steps');
  });

  it('a zero-hit recall in a healthy turn names no cause', async () => {
    expect(causeOf(new TrajectoryBuilder().turn('completed', (t) => t.add('recall', { finalCount: 0 }))).code).toBe(
      'none',
    );
  });

  it('terminal_drive_opened_without_task: a promoted drive with a success that never got text', async () => {
    const builder = new TrajectoryBuilder().turn('completed', (t) =>
      t.add('terminal_drive_promoted', { driveId: 'd1', successes: 1 }),
    );
    expect(causeOf(builder).code).toBe('terminal_drive_opened_without_task');
    const fed = new TrajectoryBuilder().turn('completed', (t) =>
      t
        .add('terminal_drive_promoted', { driveId: 'd1', successes: 1 })
        .add('terminal_drive_input', { driveId: 'd1', chars: 12 }),
    );
    expect(causeOf(fed).code).toBe('none');
    const noSuccess = new TrajectoryBuilder().turn('completed', (t) =>
      t.add('terminal_drive_promoted', { driveId: 'd1', successes: 0 }),
    );
    expect(causeOf(noSuccess).code).toBe('none');
  });

  it('terminal_drive_opened_without_task outranks completed_with_tool_errors (rule 4)', async () => {
    const builder = new TrajectoryBuilder().turn('completed_with_tool_errors', (t) =>
      t.tool('shell', false, 'failed').add('terminal_drive_promoted', { driveId: 'd1', successes: 2 }),
    );
    expect(causeOf(builder).code).toBe('terminal_drive_opened_without_task');
  });

  it('terminal_drive_evicted on the idle or wall_clock cap only, carrying reason, idleMs and wasProducing', async () => {
    const builder = new TrajectoryBuilder().turn('completed', (t) =>
      t.add('terminal_session_evicted', { driveId: 'd2', reason: 'idle', idleMs: 600_000, wasProducing: true }),
    );
    const cause = causeOf(builder);
    expect(cause.code).toBe('terminal_drive_evicted');
    expect(cause.evidence).toEqual({ reason: 'idle', idleMs: 600_000, wasProducing: true });
    for (const reason of ['max_sessions', 'max_interactions']) {
      expect(
        causeOf(
          new TrajectoryBuilder().turn('completed', (t) =>
            t.add('terminal_session_evicted', { driveId: 'd2', reason, idleMs: 1 }),
          ),
        ).code,
      ).toBe('none');
    }
    const wall = new TrajectoryBuilder().turn('error', (t) =>
      t.add('terminal_session_evicted', { driveId: 'd3', reason: 'wall_clock', idleMs: 0, wasProducing: false }),
    );
    expect(causeOf(wall).code).toBe('terminal_drive_evicted');
  });

  it('orchestrate_failed for a failed run or a denied tool call', async () => {
    const failed = new TrajectoryBuilder().turn('completed', (t) =>
      t.add('orchestrate_run', { runId: 'o1', exitCode: 2, failureClass: 'nonzero_exit', durationMs: 10 }),
    );
    expect(causeOf(failed).code).toBe('orchestrate_failed');
    const denied = new TrajectoryBuilder().turn('completed', (t) =>
      t
        .add('orchestrate_run', { runId: 'o2', leaseId: 'L2', exitCode: 0 })
        .add('capability_audited', { leaseId: 'L2', tool: 'fs.write', capability: 'fs', decision: 'deny' }),
    );
    const cause = causeOf(denied);
    expect(cause.code).toBe('orchestrate_failed');
    expect(cause.detail).toContain('fs.write');
  });

  it('benign causes rank below acute ones: a failed turn names its ending, not the failing skill', async () => {
    const builder = new TrajectoryBuilder().turn('error', (t) =>
      t.add('learning_skill', { ok: false }).add('learning_outcome', { outcome: 'failure', sources: ['tool'] }),
    );
    expect(causeOf(builder).code).toBe('error');
  });

  it('learned_skill_failing and synthesis_abstained_low_capability in a healthy session', async () => {
    expect(
      causeOf(
        new TrajectoryBuilder().turn('completed', (t) =>
          t.add('learning_skill', { ok: false }).add('learning_outcome', { outcome: 'success' }),
        ),
      ).code,
    ).toBe('learned_skill_failing');
    expect(
      causeOf(
        new TrajectoryBuilder().turn('completed', (t) =>
          t.add('learning_synthesis', { abstained: true }).add('learning_outcome', { outcome: 'success' }),
        ),
      ).code,
    ).toBe('synthesis_abstained_low_capability');
  });

  it('benign causes rank above outcome_unresolved', async () => {
    expect(causeOf(new TrajectoryBuilder().turn('completed', (t) => t.add('learning_skill', { ok: false }))).code).toBe(
      'learned_skill_failing',
    );
    expect(causeOf(new TrajectoryBuilder().turn('completed', (t) => t.add('learning_skill', { ok: true }))).code).toBe(
      'outcome_unresolved',
    );
  });

  it('outcome_unresolved only when no outcome resolved; an explicit unknown resolves', async () => {
    expect(
      causeOf(new TrajectoryBuilder().turn('completed', (t) => t.add('learning_outcome', { outcome: 'unknown' }))).code,
    ).toBe('none');
  });

  it('names other endings by their endReason', async () => {
    for (const ending of ['error', 'circuit_open', 'max_steps', 'budget_exceeded', 'context_loop', 'aborted']) {
      expect(causeOf(new TrajectoryBuilder().turn(ending)).code).toBe(ending);
    }
  });
});
