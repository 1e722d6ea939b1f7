// Issue 8 item 13: an open circuit breaker tells clients when to come back (Retry-After on /v1, data.retryAfterMs on JSON-RPC).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

/** The breaker's defaults (providers/circuit-breaker.ts): 3 consecutive failures open it for 30 s. */
const FAILURES_TO_OPEN = 3;
const COOLDOWN_MS = 30_000;
const SESSION = { tenantId: 'default', userId: 'admin', channelId: 'ops' };

describe('e2e: Retry-After for an open circuit breaker', () => {
  let llm: FakeLlm;
  let gateway: Harness;
  const clock = { now: 1_800_000_000_000 };

  const completion = () =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'hi' }] }),
    });

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
      app: { now: () => clock.now },
    });
    llm.script(...Array.from({ length: FAILURES_TO_OPEN }, () => ({ status: 500 })));
    for (let turn = 0; turn < FAILURES_TO_OPEN; turn += 1) {
      const failed = await callRpc(gateway.url, gateway.tokens.admin, 'agent.execute', {
        message: `turn ${turn}`,
        sessionKey: SESSION,
      });
      expect(failed).toMatchObject({ result: { finishReason: 'error' } });
    }
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });

  it('answers /v1 with 503 and Retry-After in whole seconds until the breaker half-opens', async () => {
    const refused = await completion();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe(String(COOLDOWN_MS / 1000));
    expect(await refused.json()).toMatchObject({ error: { type: 'server_error', code: null } });
    clock.now += 12_500;
    const later = await completion();
    expect(later.status).toBe(503);
    expect(later.headers.get('retry-after')).toBe('18');
  });

  it('answers a JSON-RPC call refused by the breaker with -32603 and data.retryAfterMs', async () => {
    // session.compact calls the model directly; the failed turns above left enough messages to summarise.
    for (let turn = 0; turn < 5; turn += 1) {
      await callRpc(gateway.url, gateway.tokens.admin, 'agent.execute', {
        message: `more ${turn}`,
        sessionKey: SESSION,
      });
    }
    const refused = await callRpc(gateway.url, gateway.tokens.admin, 'session.compact', { key: 'default:admin:ops' });
    expect(refused.error).toEqual({
      code: -32603,
      message: 'Model provider unavailable: circuit breaker open for local',
      data: { kind: 'unavailable', retryAfterMs: COOLDOWN_MS - 12_500 },
    });
  });
});
