// diagnostic:billing_snapshot every obs.billingSnapshotIntervalMs with the spend since the previous one, and
// security:warn for unsafe config: at start (replayed to a reconnecting client) and when a change brings it in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type ReadFrame } from '../../http/rest/sse-reader.js';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startGateway, type Harness } from '../../support/gateway-harness.js';
import { callRpc } from '../../support/http-client.js';

const payloadOf = (frame: ReadFrame | undefined) => JSON.parse(frame?.data ?? '{}') as Record<string, unknown>;

describe('diagnostic and security events', () => {
  let llm: FakeLlm;
  let gateway: Harness;

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
      obs: { billingSnapshotIntervalMs: 100 },
      terminal: { enabled: true, sandbox: 'none' },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });

  it('snapshots the tokens and cost a turn used', async () => {
    const events = await openSse(`${gateway.url}/api/events?token=${gateway.tokens.admin}`);
    await events.next();
    const response = await fetch(`${gateway.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'count me' }),
    });
    const { tokensUsed } = (await response.json()) as { tokensUsed: { total: number } };
    expect(tokensUsed.total).toBeGreaterThan(0);
    const frames = await events.until(
      (frame) => frame.event === 'diagnostic:billing_snapshot' && payloadOf(frame).totalTokens === tokensUsed.total,
    );
    events.close();
    expect(payloadOf(frames.at(-1))).toMatchObject({ totalCost: expect.any(Number), sinceMs: expect.any(Number) });
  });

  it('warns about unjailed terminal drives at start, and about a public bind without TLS when a change makes one', async () => {
    // Last-Event-ID older than anything held replays the ring from its oldest event, the start's warnings among them.
    const events = await openSse(`${gateway.url}/api/events?token=${gateway.tokens.admin}`, { 'last-event-id': '0' });
    const atStart = await events.until((frame) => frame.event === 'security:warn');
    expect(payloadOf(atStart.at(-1))).toMatchObject({ reason: 'terminal_sandbox_none' });

    const patched = await callRpc(gateway.url, gateway.tokens.admin, 'config.patch', { gateway: { host: '0.0.0.0' } });
    expect(patched.error).toBeUndefined();
    const afterChange = await events.until(
      (frame) => frame.event === 'security:warn' && payloadOf(frame).reason === 'public_bind_without_tls',
    );
    events.close();
    // The sandbox warning is not repeated for a change that did not bring it in.
    expect(afterChange.filter((frame) => frame.event === 'security:warn')).toHaveLength(1);
  });

  it('warns once about a burst of refused requests from one address', async () => {
    const events = await openSse(`${gateway.url}/api/events?token=${gateway.tokens.admin}`);
    await events.next();
    for (let attempt = 0; attempt < 25; attempt += 1) {
      const refused = await fetch(`${gateway.url}/api/agents`, { headers: { authorization: 'Bearer wrong-token' } });
      expect(refused.status).toBe(401);
    }
    await callRpc(gateway.url, gateway.tokens.admin, 'config.patch', { obs: { retentionDays: 31 } });
    const frames = await events.until((frame) => frame.event === 'config:patched');
    events.close();
    const warnings = frames.filter((frame) => frame.event === 'security:warn').map(payloadOf);
    expect(warnings).toEqual([
      { reason: 'refused_burst', source: expect.stringMatching(/^address:/), count: 20, ts: expect.any(Number) },
    ]);
  });
});
