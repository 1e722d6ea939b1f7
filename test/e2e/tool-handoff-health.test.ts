// Issue 31 (DESIGN §3 "client tool hand-off"): a /v1 turn that ends by handing tool calls to its client ended normally,
// so obs.fleet.health counts no degraded session and raises no fleet_acute_degradation, and obs.explain calls it healthy.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncidentReport } from '../../src/obs/explain/index.js';
import type { FleetHealthReport } from '../../src/obs/fleet/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const HAND_OFFS = 4;

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('client tool hand-offs in the health reports', () => {
  let llm: FakeLlm;
  let harness: Harness;
  const completionIds: string[] = [];

  const rpc = async (method: string, params: Record<string, unknown> = {}): Promise<unknown> => {
    const answer = await callRpc(harness.url, harness.tokens.admin, method, params);
    if (answer.error !== undefined) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    return answer.result;
  };

  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['mock-model'] });
    harness = await startGateway({
      providers: { mock: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'mock-model' }] } },
      agents: { default: { name: 'Assistant', provider: 'mock', model: 'mock-model' } },
    });
    const client = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: harness.tokens.api, maxRetries: 0 });
    // The normal loop of every SDK: the model calls the client's tool, the request ends with finish_reason tool_calls.
    for (let index = 0; index < HAND_OFFS; index += 1) {
      llm.script({ toolCalls: [{ name: 'get_weather', arguments: { city: `City ${index}` } }] });
      const completion = await client.chat.completions.create({
        model: 'default',
        messages: [{ role: 'user', content: 'Weather?' }],
        tools: [weatherTool],
      });
      expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
      completionIds.push(completion.id);
    }
  }, 30_000);
  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });

  it('counts no degraded session and raises no fleet_acute_degradation', async () => {
    const fleet = (await rpc('obs.fleet.health')) as FleetHealthReport;
    expect(fleet.sessions).toEqual({ total: HAND_OFFS, degraded: 0, degradedRate: 0 });
    expect(fleet.degradedByCause).toEqual({});
    expect(fleet.likelyRootCause.code).toBe('none');
    expect(fleet.activity.exitReasons).toEqual({ tool_calls: HAND_OFFS });
  });

  it('explains a hand-off as a healthy ending, and trace search finds none degraded', async () => {
    const report = (await rpc('obs.explain', {
      sessionKey: `default:openai-api:openai:${completionIds[0] ?? ''}`,
    })) as IncidentReport;
    expect(report.outcome).toEqual({ endReason: 'tool_calls', degraded: false, severity: 'info' });
    expect(report.likelyRootCause.code).toBe('none');
    const { rows } = (await rpc('obs.trace.search', { where: 'degraded = true' })) as { rows: unknown[] };
    expect(rows).toEqual([]);
  });
});
