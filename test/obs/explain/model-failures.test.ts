// obs.explain over failed model calls (issue 31): each model a failed call tried is a failures[] entry, the root cause
// names the status and the upstream's message, an unreachable store is its own cause, and a tool hand-off is healthy.
import { describe, expect, it } from 'vitest';
import { assembleIncidentReport } from '../../../src/obs/explain/index.js';
import { sessionEvidence, TrajectoryBuilder } from '../fixtures.js';

const report = (builder: TrajectoryBuilder, depth: 'summary' | 'full' = 'summary') =>
  assembleIncidentReport(sessionEvidence(builder.records), { depth });

const chain = [
  {
    provider: 'openai',
    model: 'gpt-x',
    providerErrorKind: 'rate_limit',
    status: 429,
    message: 'You exceeded your current quota',
  },
  { provider: 'claude', model: 'sonnet', providerErrorKind: 'server', status: 529, message: 'Overloaded' },
];

describe('obs.explain model failures', () => {
  it('lists each failed model, newest first, and names the chain in the root cause', () => {
    const explained = report(
      new TrajectoryBuilder().turn('error', (t) =>
        t.add('model_error', { step: 2, errorKind: 'upstream_failed', providerErrorKind: 'server', models: chain }),
      ),
    );
    expect(explained.failures).toEqual([
      {
        seq: 3,
        toolName: 'claude/sonnet',
        errorKind: 'server',
        resultDigest: 'none',
        resultBytes: 0,
        errorPreview: 'server (HTTP 529): Overloaded',
        provider: 'claude',
        model: 'sonnet',
        status: 529,
        message: 'Overloaded',
        step: 2,
      },
      {
        seq: 3,
        toolName: 'openai/gpt-x',
        errorKind: 'rate_limit',
        resultDigest: 'none',
        resultBytes: 0,
        errorPreview: 'rate_limit (HTTP 429): You exceeded your current quota',
        provider: 'openai',
        model: 'gpt-x',
        status: 429,
        message: 'You exceeded your current quota',
        step: 2,
      },
    ]);
    expect(explained.likelyRootCause).toEqual({
      code: 'upstream_failed',
      detail:
        'Every model tried failed: openai/gpt-x: rate_limit (HTTP 429): You exceeded your current quota; claude/sonnet: server (HTTP 529): Overloaded.',
      suggestedNextSteps: [expect.stringContaining('retry'), expect.stringContaining('failures[]')],
      evidence: { provider: 'claude', model: 'sonnet', errorKind: 'server', status: 529 },
    });
    expect(explained.summary).toContain('no tool calls; 2 model call(s) failed;');
    expect(explained.summary).toContain('Likely cause: upstream_failed.');
  });

  it('names one failed model with its status and message, and the remedy for its kind', () => {
    const cause = report(
      new TrajectoryBuilder().turn('error', (t) =>
        t.add('model_error', {
          step: 1,
          errorKind: 'upstream_failed',
          providerErrorKind: 'auth',
          models: [
            {
              provider: 'openai',
              model: 'gpt-x',
              providerErrorKind: 'auth',
              status: 401,
              message: 'Incorrect API key provided: ***',
            },
          ],
        }),
      ),
    ).likelyRootCause;
    expect(cause.detail).toBe(
      'The model call to openai/gpt-x failed: auth (HTTP 401): Incorrect API key provided: ***.',
    );
    expect(cause.suggestedNextSteps[0]).toContain('providers.openai.apiKey');
  });

  it('keeps tool and model failures in one newest-first list, and counts them apart in the summary', () => {
    const explained = report(
      new TrajectoryBuilder().turn('error', (t) =>
        t
          .tool('fetch', false, 'timeout')
          .add('model_error', { step: 2, errorKind: 'upstream_failed', models: [chain[1]] }),
      ),
    );
    expect(explained.failures.map((failure) => failure.toolName)).toEqual(['claude/sonnet', 'fetch']);
    expect(explained.summary).toContain('1 of 1 tool call(s) failed; 1 model call(s) failed;');
    // Rule 1: a tool failure outranks the cause that explains the terminal state.
    expect(explained.likelyRootCause.code).toBe('tool_failure');
  });

  it('reads stored messages back whole up to the cap, and ignores malformed model entries', () => {
    const long = `${'x'.repeat(500)}…`;
    const explained = report(
      new TrajectoryBuilder().turn('error', (t) =>
        t.add('model_error', {
          step: 1,
          errorKind: 'upstream_failed',
          models: [
            { provider: 'p', model: 'm', providerErrorKind: 'server', status: 'teapot', message: long },
            { model: 'no-provider' },
            'junk',
          ],
        }),
      ),
      'full',
    );
    expect(explained.failures).toHaveLength(1);
    expect(explained.failures[0]).toMatchObject({ provider: 'p', model: 'm', message: long });
    expect(explained.failures[0]?.status).toBeUndefined();
    expect(explained.failures[0]?.errorPreview.length).toBeLessThan(260);
  });

  it('names an unreachable store as the cause of a turn that stopped on it', () => {
    const cause = report(
      new TrajectoryBuilder().turn('error', (t) =>
        t.add('model_error', { step: 1, errorKind: 'unavailable', reason: 'dependency_outage' }),
      ),
    ).likelyRootCause;
    expect(cause.code).toBe('dependency_unavailable');
    expect(cause.suggestedNextSteps[0]).toContain('/ready');
  });

  it('calls a client tool hand-off a healthy ending', () => {
    const explained = report(new TrajectoryBuilder().turn('tool_calls'));
    expect(explained.outcome).toEqual({ endReason: 'tool_calls', degraded: false, severity: 'info' });
    expect(explained.likelyRootCause.code).toBe('none');
  });
});
