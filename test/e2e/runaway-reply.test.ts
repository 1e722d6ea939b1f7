// End to end: a provider that ignores max_tokens and streams 40 MB. The gateway cuts the model call at the catalog
// entry's maxTokens, aborts the upstream request, and the turn finishes `length` (output_starved in obs.explain) with
// the answer up to the cut.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncidentReport } from '../../src/obs/explain/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const HUGE_CHARS = 40_000_000;
const MAX_TOKENS = 512;
/** The cut: 4 characters a token, twice over (src/providers/output-limit.ts). */
const CAP_CHARS = MAX_TOKENS * 8;

describe('a runaway model reply', () => {
  let llm: FakeLlm;
  let harness: Harness;
  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    harness = await startGateway({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'fake-model', maxTokens: MAX_TOKENS }],
        },
      },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    });
  });
  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });

  const rpc = async (method: string, params: Record<string, unknown>) => {
    const response = await callRpc(harness.url, harness.tokens.admin, method, params);
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result as Record<string, unknown>;
  };

  it('is cut at the maxTokens estimate: the answer up to the cut, finishReason length, aborted upstream, output_starved in obs.explain', async () => {
    llm.script({ huge: { chars: HUGE_CHARS } });
    const sessionKey = { tenantId: 'default', userId: 'alice', channelId: 'test', peerId: 'runaway' };
    const result = await rpc('agent.execute', { message: 'Tell me everything', sessionKey });
    expect(result.finishReason).toBe('length');
    expect(String(result.response)).toHaveLength(CAP_CHARS);

    const upstream = llm.chatRequests().at(-1);
    await expect.poll(() => upstream?.closedByClient).toBe(true);
    expect(upstream?.streamedChars).toBeLessThan(HUGE_CHARS / 2);

    const report = (await rpc('obs.explain', {
      sessionKey: 'default:alice:test:runaway',
    })) as unknown as IncidentReport;
    expect(report.outcome).toEqual({ endReason: 'output_starved', degraded: true, severity: 'warning' });
    expect(report.likelyRootCause.code).toBe('output_starved');
  });

  it('bounds an OpenAI-compatible completion the same way', async () => {
    llm.script({ huge: { chars: HUGE_CHARS } });
    const response = await fetch(`${harness.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${harness.tokens.api}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'Everything, please' }] }),
    });
    expect(response.status).toBe(200);
    const completion = (await response.json()) as {
      choices: { message: { content: string }; finish_reason: string }[];
    };
    expect(completion.choices[0]?.message.content).toHaveLength(CAP_CHARS);
    expect(completion.choices[0]?.finish_reason).toBe('length');
    await expect.poll(() => llm.chatRequests().at(-1)?.closedByClient).toBe(true);
  });

  it('keeps the text up to the cut when the first delta alone is past it', async () => {
    llm.script({ deltas: ['z'.repeat(CAP_CHARS * 2)] });
    const sessionKey = { tenantId: 'default', userId: 'alice', channelId: 'test', peerId: 'one-chunk' };
    const result = await rpc('agent.execute', { message: 'All at once', sessionKey });
    expect(result).toMatchObject({ response: 'z'.repeat(CAP_CHARS), finishReason: 'length' });
  });
});
