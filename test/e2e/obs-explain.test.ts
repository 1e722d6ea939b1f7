// End to end: real turns through a started gateway against the fake LLM server (a failing tool, a model-call
// timeout), then obs.explain, obs.fleet.health, billing and trace search over the evidence the turns recorded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncidentReport } from '../../src/obs/explain/index.js';
import type { FleetHealthReport } from '../../src/obs/fleet/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const TOOL_SESSION = 'default:alice:test:tool';
const TIMEOUT_SESSION = 'default:alice:test:slow';

describe('obs over real agent turns', () => {
  let llm: FakeLlm;
  let harness: Harness;
  let obsCall: (method: string, params?: Record<string, unknown>) => Promise<unknown>;

  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    harness = await startGateway({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          timeoutMs: 300,
          models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512, cost: { input: 1, output: 2 } }],
        },
      },
      agents: {
        default: {
          name: 'Assistant',
          provider: 'fake',
          model: 'fake-model',
          systemPrompt: 'Be brief.',
          tools: ['current_time'],
        },
      },
    });
    const execute = async (sessionKeyPeer: string, message: string) => {
      const response = await callRpc(harness.url, harness.tokens.admin, 'agent.execute', {
        message,
        sessionKey: { tenantId: 'default', userId: 'alice', channelId: 'test', peerId: sessionKeyPeer },
      });
      if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
      return response.result as { finishReason: string };
    };
    // A tool call with input the tool refuses, then an answer: the turn completes with a tool error.
    llm.script(
      {
        toolCalls: [{ name: 'current_time', arguments: { timezone: 'Mars/Olympus' } }],
        usage: { inputTokens: 40, outputTokens: 5 },
      },
      { text: 'I could not read the clock.', usage: { inputTokens: 60, outputTokens: 7 } },
    );
    expect(await execute('tool', 'What time is it?')).toMatchObject({ finishReason: 'stop' });
    // A reply slower than the provider's timeoutMs: the model call times out and the turn fails.
    llm.script({ text: 'too late', delayMs: 5_000 });
    expect(await execute('slow', 'A slow question')).toMatchObject({ finishReason: 'error' });
    // The reports are read from the running gateway over JSON-RPC, as an operator would.
    obsCall = async (method, params = {}) => {
      const response = await callRpc(harness.url, harness.tokens.admin, method, params);
      if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
      return response.result;
    };
  }, 30_000);

  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });

  it('explains the failing tool from its digest, never its output', async () => {
    const report = (await obsCall('obs.explain', { sessionKey: TOOL_SESSION })) as IncidentReport;
    expect(report).toMatchObject({
      schemaVersion: 1,
      sessionKey: TOOL_SESSION,
      agentId: 'default',
      channel: 'test',
      outcome: { endReason: 'completed_with_tool_errors', degraded: true, severity: 'warning' },
      cost: { totalTokens: 112 },
      timing: { turnCount: 1 },
      toolStats: { current_time: { ok: 0, failed: 1, topErrorKind: 'invalid_input' } },
      failures: [
        {
          toolName: 'current_time',
          errorKind: 'invalid_input',
          resultDigest: expect.stringMatching(/^sha256:[0-9a-f]{16}$/),
        },
      ],
      likelyRootCause: { code: 'completed_with_tool_errors' },
      coverage: { trajectory: { found: true } },
    });
    const text = JSON.stringify(report);
    expect(text).not.toContain('Mars/Olympus');
    expect(text).not.toContain('invalid input for');
    expect(JSON.stringify(await obsCall('obs.explain', { traceId: report.traceId ?? '' }))).toBe(text);
    expect(JSON.stringify(await obsCall('obs.explain', { rootRunId: `root-session-${TOOL_SESSION}` }))).toBe(text);
  });

  it('explains the timed-out turn from its model error', async () => {
    const report = (await obsCall('obs.explain', { sessionKey: TIMEOUT_SESSION })) as IncidentReport;
    expect(report.outcome).toMatchObject({ endReason: 'timeout', degraded: true });
    // The failed model call is a failure of its own (issue 31): no status, as the provider never answered.
    expect(report.failures).toEqual([
      {
        seq: expect.any(Number),
        toolName: 'fake/fake-model',
        errorKind: 'timeout',
        resultDigest: 'none',
        resultBytes: 0,
        errorPreview: 'timeout',
        provider: 'fake',
        model: 'fake-model',
        step: 1,
      },
    ]);
    // The turn recorded its prompt_timeout evidence, so the cause is numbers-backed and names the knob.
    expect(report.likelyRootCause.code).toBe('prompt_timeout');
    expect(JSON.stringify(report.likelyRootCause)).toContain('providers.fake.timeoutMs');
  });

  it('answers session_not_found for an unknown trace', async () => {
    expect(await obsCall('obs.explain', { traceId: 'no-such-trace' })).toMatchObject({
      marker: 'session_not_found',
      reference: { kind: 'traceId', value: 'no-such-trace' },
    });
  });

  it('sums both sessions in fleet health, billing and trace search', async () => {
    const fleet = (await obsCall('obs.fleet.health')) as FleetHealthReport;
    expect(fleet).toMatchObject({
      windowHours: 24,
      sessions: { total: 2, degraded: 2, degradedRate: 1 },
      degradedByCause: { completed_with_tool_errors: 1, timeout: 1 },
      toolStats: { current_time: { ok: 0, failed: 1, topErrorKind: 'invalid_input' } },
      activity: { activeAgents: ['default'], activeChannels: ['test'], turnTotal: 2 },
      autonomy: { runs: { total: 0 } },
    });
    expect(fleet.topErrorKinds.map((entry) => entry.kind).sort()).toEqual(['invalid_input', 'upstream_failed']);
    expect(await obsCall('obs.billing.bySession', { sessionKey: TOOL_SESSION })).toMatchObject({
      callCount: 2,
      totalTokens: 112,
    });
    const { rows } = (await obsCall('obs.trace.search', { where: 'degraded = true' })) as {
      rows: { sessionKey: string }[];
    };
    expect(rows.map((row) => row.sessionKey).sort()).toEqual([TIMEOUT_SESSION, TOOL_SESSION]);
  });
});
