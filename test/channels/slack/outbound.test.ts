// Slack adapter, outbound: chat.postMessage replies in threads, DeliveryFailure on 429 / 5xx / 4xx / network,
// approval buttons and their settlement by chat.update, channels.test through auth.test, and health on failures.
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalPrompt } from '../../../src/channels/types.js';
import { freePort } from '../../support/free-port.js';
import { FAKE_BOT_TOKEN } from '../../support/fake-slack.js';
import { startSlackFixture, type SlackFixture } from './slack-fixture.js';

let fixture: SlackFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function started(overrides: Record<string, unknown> = {}): Promise<SlackFixture> {
  fixture = await startSlackFixture('events', overrides);
  return fixture;
}

const signal = () => AbortSignal.timeout(10_000);

const prompt: ApprovalPrompt = {
  chatId: 'C1',
  threadId: '1700000000.000100',
  requestId: 'req-42',
  code: '7Q2K',
  toolName: 'shell.exec',
  summary: 'rm -rf <build> & rebuild',
};

describe('Slack adapter, outbound', () => {
  it('sends a chunk with chat.postMessage into the thread, escaped, and resolves to its ts', async () => {
    const { adapter, fake } = await started();
    const sent = await adapter.send(
      { chatId: 'C1', threadId: '1700000000.000100', text: 'a <!channel> & b' },
      signal(),
    );
    const call = await fake.waitForCall('chat.postMessage');
    expect(call.token).toBe(FAKE_BOT_TOKEN);
    expect(call.params).toMatchObject({
      channel: 'C1',
      thread_ts: '1700000000.000100',
      text: 'a &lt;!channel&gt; &amp; b',
    });
    expect(sent.messageId).toMatch(/^\d+\.\d+$/);
  });

  it('fails a rate-limited send at once as retryable, with retryAfterMs from Retry-After', async () => {
    const { adapter, fake } = await started();
    fake.script('chat.postMessage', { status: 429, retryAfterSeconds: 7 });
    await expect(adapter.send({ chatId: 'C1', text: 'hi' }, signal())).rejects.toMatchObject({
      retryable: true,
      retryAfterMs: 7_000,
    });
    expect(fake.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(1);
  });

  it('fails a 5xx and a network failure as retryable, a bad channel as not retryable', async () => {
    const { adapter, fake } = await started();
    fake.script('chat.postMessage', { status: 503 });
    const outage = await adapter.send({ chatId: 'C1', text: 'hi' }, signal()).catch((error: unknown) => error);
    expect(outage).toMatchObject({ retryable: true });
    expect(outage).not.toHaveProperty('retryAfterMs', expect.any(Number));
    expect(fake.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(1);
    fake.script('chat.postMessage', { error: 'channel_not_found' });
    await expect(adapter.send({ chatId: 'C404', text: 'hi' }, signal())).rejects.toMatchObject({
      retryable: false,
      message: expect.stringContaining('channel_not_found'),
    });
    await fixture?.close();
    fixture = await startSlackFixture('events', { apiBaseUrl: `http://127.0.0.1:${await freePort()}/api/` });
    await expect(fixture.adapter.send({ chatId: 'C1', text: 'hi' }, signal())).rejects.toMatchObject({
      retryable: true,
    });
  });

  it('posts approve and deny buttons carrying the request id, and settles the post with chat.update', async () => {
    const { adapter, fake } = await started();
    const asked = await adapter.askApproval(prompt, signal());
    const post = await fake.waitForCall('chat.postMessage');
    expect(post.params).toMatchObject({ channel: 'C1', thread_ts: '1700000000.000100' });
    expect(String(post.params.text)).toContain('shell.exec');
    const blocks = JSON.stringify(post.params.blocks);
    expect(blocks).toContain('rm -rf &lt;build&gt; &amp; rebuild');
    expect(blocks).toContain('7Q2K');
    const actions = (post.params.blocks as { type: string; elements?: unknown[] }[]).find((b) => b.type === 'actions');
    expect(actions?.elements).toEqual([
      expect.objectContaining({ type: 'button', action_id: 'approve', value: 'req-42' }),
      expect.objectContaining({ type: 'button', action_id: 'deny', value: 'req-42' }),
    ]);

    await adapter.settleApproval({ ...prompt, messageId: asked.messageId, approved: false, by: 'dashboard:alice' });
    const update = await fake.waitForCall('chat.update');
    expect(update.params).toMatchObject({ channel: 'C1', ts: asked.messageId });
    expect(String(update.params.text)).toMatch(/denied by dashboard:alice/i);
    expect(JSON.stringify(update.params.blocks)).not.toContain('"actions"');
  });

  it('has no typing indicator (Slack bots have none) and resolves without a call', async () => {
    const { adapter, fake } = await started();
    await adapter.typing('C1', '1700000000.000100');
    expect(fake.calls.map((c) => c.method)).toEqual(['auth.test']);
  });

  it('tests the connection with auth.test, and reports a bad token', async () => {
    const { adapter } = await started();
    expect((await adapter.test(signal())).detail).toMatch(/gateway.*Fake Team/);
    await fixture?.close();
    fixture = await startSlackFixture('events', { botToken: 'xoxb-wrong' });
    await expect(fixture.adapter.test(signal())).rejects.toThrow(/invalid_auth/);
    await fixture.until((r) => r.health.find((h) => h.state === 'degraded'), 'degraded at start');
    expect(fixture.recorded.health.at(-1)?.error).toMatch(/invalid_auth/);
  });

  it('reports degraded after repeated delivery failures and connected again after a delivery succeeds', async () => {
    const { adapter, fake } = await started();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      fake.script('chat.postMessage', { status: 502 });
      await expect(adapter.send({ chatId: 'C1', text: 'hi' }, signal())).rejects.toMatchObject({ retryable: true });
    }
    const degraded = await fixture!.until((r) => r.health.find((h) => h.state === 'degraded'), 'degraded');
    expect(degraded.error).toMatch(/502/);
    await adapter.send({ chatId: 'C1', text: 'hi' }, signal());
    expect(fixture!.recorded.health.map((h) => h.state)).toEqual(['connecting', 'connected', 'degraded', 'connected']);
  });

  it('reports disconnected at stop', async () => {
    const { adapter, recorded } = await started();
    await adapter.stop();
    expect(recorded.health.at(-1)).toEqual({ state: 'disconnected' });
  });
});
