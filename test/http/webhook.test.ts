// POST /hooks/webhook: HMAC signatures (prefixed, bare, timestamped), 202 at once, the turn in the background.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { connect } from '../support/ws-client.js';

const SECRET = 'webhook-secret-0123456789';

function sign(body: string, timestamp?: number): string {
  const hmac = createHmac('sha256', SECRET);
  if (timestamp !== undefined) hmac.update(`${timestamp}.`);
  return hmac.update(body).digest('hex');
}

describe('webhook intake', () => {
  let llm: FakeLlm;
  let harness: Harness;
  beforeAll(async () => {
    llm = await startFakeLlm();
    harness = await startGateway({
      gateway: { webhook: { secret: SECRET, agentId: 'hooks' } },
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { hooks: { name: 'Hook handler', provider: 'fake', model: 'fake-model' } },
    });
  });
  afterAll(async () => {
    await harness.close();
    await llm.close();
  });

  const post = (body: string, headers: Record<string, string>) =>
    fetch(`${harness.url}/hooks/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  /** The agent messages the model received that mention `text` (turns run in the background, in any order). */
  const agentMessages = (text: string): string[] =>
    llm
      .chatRequests()
      .map((request) => (request.body as { messages: { content: string }[] }).messages.at(-1)?.content ?? '')
      .filter((content) => content.includes(text));

  it('accepts a signed event with 202, runs the agent and announces session.completed to admin sockets', async () => {
    const socket = connect(harness.wsUrl, { token: harness.tokens.admin });
    await socket.opened;
    llm.script({ text: 'Handled the deploy.' });
    const body = JSON.stringify({ event: 'deploy.finished', source: 'ci', data: { build: 42 } });
    const response = await post(body, { 'x-webhook-signature': `sha256=${sign(body)}` });
    expect(response.status).toBe(202);
    const accepted = (await response.json()) as { accepted: boolean; runId: string; sessionKey: string };
    expect(accepted).toMatchObject({
      accepted: true,
      runId: expect.any(String),
      sessionKey: `default:ci:webhook:${accepted.runId}`,
    });

    const done = await socket.waitFor((frame) => frame.method === 'session.completed', 5000);
    expect(done.params).toMatchObject({
      sessionKey: accepted.sessionKey,
      result: { response: 'Handled the deploy.', finishReason: 'stop' },
    });
    const sent = llm.chatRequests().at(-1)?.body as { messages: { role: string; content: string }[] };
    expect(sent.messages.at(-1)?.content).toContain('deploy.finished');
    expect(sent.messages.at(-1)?.content).toContain('"build": 42');
    await socket.close();
  });

  it("runs an event whose source is named like a token: the run's fresh key squats no one's conversation", async () => {
    const socket = connect(harness.wsUrl, { token: harness.tokens.admin });
    await socket.opened;
    llm.script({ text: 'Handled the release.' });
    const body = JSON.stringify({ event: 'release.cut', source: 'rpc-client', data: { tag: 'v2' } });
    const response = await post(body, { 'x-webhook-signature': sign(body) });
    expect(response.status).toBe(202);
    const { sessionKey } = (await response.json()) as { sessionKey: string };
    const done = await socket.waitFor(
      (frame) =>
        frame.method === 'session.completed' && (frame.params as { sessionKey?: string }).sessionKey === sessionKey,
      5000,
    );
    expect(done.params).toMatchObject({ result: { response: 'Handled the release.', finishReason: 'stop' } });
    await socket.close();
  });

  it('accepts a bare hex signature and a timestamped one', async () => {
    const body = JSON.stringify({ event: 'ping', data: null });
    expect((await post(body, { 'x-webhook-signature': sign(body) })).status).toBe(202);
    const timestamp = Math.floor(Date.now() / 1000);
    expect(
      (
        await post(body, {
          'x-webhook-signature': `sha256=${sign(body, timestamp)}`,
          'x-webhook-timestamp': String(timestamp),
        })
      ).status,
    ).toBe(202);
  });

  it('refuses a missing, wrong or stale signature with 401 and the REST envelope', async () => {
    const body = JSON.stringify({ event: 'ping', data: {} });
    const missing = await post(body, {});
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({
      error: { code: 'unauthorized', message: 'Missing X-Webhook-Signature header' },
    });
    expect((await post(body, { 'x-webhook-signature': `sha256=${sign(`${body} `)}` })).status).toBe(401);
    expect((await post(body, { 'x-webhook-signature': 'sha256=zz' })).status).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 3600;
    expect(
      (await post(body, { 'x-webhook-signature': sign(body, stale), 'x-webhook-timestamp': String(stale) })).status,
    ).toBe(401);
    // A signature over the body without the timestamp does not cover a timestamped request.
    const now = Math.floor(Date.now() / 1000);
    expect((await post(body, { 'x-webhook-signature': sign(body), 'x-webhook-timestamp': String(now) })).status).toBe(
      401,
    );
  });

  it('refuses a correctly signed body that is not {event, source?, data} with 400', async () => {
    for (const body of [
      'not json',
      JSON.stringify({ data: 1 }),
      JSON.stringify({ event: 'x', data: 1, extra: true }),
    ]) {
      const response = await post(body, { 'x-webhook-signature': sign(body) });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'invalid_request' } });
    }
  });

  it('answers a replayed delivery 409 duplicate for 10 minutes, and still accepts a distinct one', async () => {
    const body = JSON.stringify({ event: 'invoice.paid', source: 'billing', data: { invoice: 'in_1' } });
    const headers = { 'x-webhook-signature': `sha256=${sign(body)}` };
    expect((await post(body, headers)).status).toBe(202);
    for (const replay of [headers, { 'x-webhook-signature': sign(body).toUpperCase() }]) {
      const response = await post(body, replay);
      expect(response.status).toBe(409);
      expect(await response.json()).toEqual({
        error: { code: 'duplicate', message: expect.stringContaining('already accepted') },
      });
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const stamped = { 'x-webhook-signature': sign(body, timestamp), 'x-webhook-timestamp': String(timestamp) };
    expect((await post(body, stamped)).status).toBe(202);
    expect((await post(body, stamped)).status).toBe(409);

    const distinct = JSON.stringify({ event: 'invoice.paid', source: 'billing', data: { invoice: 'in_2' } });
    expect((await post(distinct, { 'x-webhook-signature': sign(distinct) })).status).toBe(202);
    // Three turns ran: the first delivery, its timestamped variant and the distinct one; no replay started one.
    await expect.poll(() => agentMessages('invoice.paid').length).toBe(3);
    expect(agentMessages('"in_2"')).toHaveLength(1);
  });

  it('keeps the agent message within maxMessageChars when pretty-printing would multiply a small body', async () => {
    // 3000 zeros 16 arrays deep: about 6 KB on the wire, over 100 000 characters once indented two spaces a level.
    let data: unknown = Array.from({ length: 3000 }, () => 0);
    for (let depth = 0; depth < 16; depth += 1) data = [data];
    const body = JSON.stringify({ event: 'bulk.export', source: 'etl', data });
    expect(body.length).toBeLessThan(6200);
    expect(JSON.stringify(data, null, 2).length).toBeGreaterThan(3 * 32_000);
    const response = await post(body, { 'x-webhook-signature': sign(body) });
    expect(response.status).toBe(202);
    await expect.poll(() => agentMessages('bulk.export').length).toBe(1);
    const message = agentMessages('bulk.export')[0] ?? '';
    expect(message).toContain(JSON.stringify(data));
    expect(message.length).toBeLessThanOrEqual(32_000);
  });

  it('refuses a delivery whose message would exceed maxMessageChars even as compact JSON with 413, without recording it', async () => {
    const body = JSON.stringify({ event: 'blob.oversize', data: { text: 'x'.repeat(40_000) } });
    const response = await post(body, { 'x-webhook-signature': sign(body) });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: { code: 'payload_too_large', message: expect.stringContaining('gateway.webhook.maxMessageChars') },
    });
    // Refused, so not remembered as delivered: the same delivery is refused again for its size, not as a duplicate.
    expect((await post(body, { 'x-webhook-signature': sign(body) })).status).toBe(413);
    expect(agentMessages('blob.oversize')).toEqual([]);
  });

  it('is not mounted without webhook configuration', async () => {
    const plain = await startGateway();
    try {
      const response = await fetch(`${plain.url}/hooks/webhook`, { method: 'POST', body: '{}' });
      expect(response.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
