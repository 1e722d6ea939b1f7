// secrets.list / secrets.set / secrets.delete: names only in answers, the value applied live to the config that refers
// to it, secret:modified and secret:accessed on /api/events, and the value in no event, answer or log line.
import { stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type ReadFrame } from '../../http/rest/sse-reader.js';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startGateway, type Harness } from '../../support/gateway-harness.js';
import { callRpc } from '../../support/http-client.js';
import { captureLogs } from '../../support/log-capture.js';

const VALUE = 'sk-live-value-0123456789-never-shown';

describe('secrets.* and the secret events', () => {
  let llm: FakeLlm;
  let gateway: Harness;
  const logs = captureLogs('debug');

  beforeAll(async () => {
    llm = await startFakeLlm({ apiKey: VALUE });
    gateway = await startGateway({
      log: logs.log,
      providers: {
        local: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          apiKey: '${secret:LLM_KEY}',
          models: [{ id: 'small' }],
        },
      },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });

  const chat = (message: string) =>
    fetch(`${gateway.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message }),
    });
  const payloadOf = (frame: ReadFrame | undefined) => JSON.parse(frame?.data ?? '{}') as Record<string, unknown>;

  it('sets a secret the provider refers to, applies it at once and tells who changed and who read it', async () => {
    const events = await openSse(`${gateway.url}/api/events?token=${gateway.tokens.admin}`);
    await events.next();

    const set = await callRpc(gateway.url, gateway.tokens.admin, 'secrets.set', { name: 'LLM_KEY', value: VALUE });
    expect(set.result).toMatchObject({ name: 'LLM_KEY', sections: ['providers'] });
    const frames = await events.until((frame) => frame.event === 'secret:accessed');
    expect(payloadOf(frames.find((frame) => frame.event === 'secret:modified'))).toMatchObject({
      name: 'LLM_KEY',
      action: 'set',
    });
    expect(payloadOf(frames.at(-1))).toMatchObject({ name: 'LLM_KEY' });

    const listed = await callRpc(gateway.url, gateway.tokens.admin, 'secrets.list');
    // The harness tokens' secrets were moved out of config.yaml at start, under names of their config paths.
    expect(listed.result).toEqual({ names: expect.arrayContaining(['LLM_KEY', 'gateway.tokens.admin.secret']) });
    expect((await stat(gateway.paths.secretsPath)).mode & 0o777).toBe(0o600);
    const answer = (await (await chat('with the key')).json()) as { finishReason: string };
    expect(answer.finishReason).toBe('stop');
    expect(llm.chatRequests().at(-1)?.headers.authorization).toBe(`Bearer ${VALUE}`);

    const deleted = await callRpc(gateway.url, gateway.tokens.admin, 'secrets.delete', { name: 'LLM_KEY' });
    expect(deleted.result).toMatchObject({ name: 'LLM_KEY' });
    const after = await events.until((frame) => frame.event === 'secret:modified');
    events.close();
    expect(payloadOf(after.at(-1))).toMatchObject({ name: 'LLM_KEY', action: 'deleted' });
    const remaining = await callRpc(gateway.url, gateway.tokens.admin, 'secrets.list');
    expect(remaining.result).toEqual({ names: expect.not.arrayContaining(['LLM_KEY']) });

    const everything = [...frames, ...after].map((frame) => frame.data ?? '').join('\n');
    expect(everything).not.toContain(VALUE);
    expect(JSON.stringify([set, listed, deleted])).not.toContain(VALUE);
    expect(logs.lines.join('\n')).not.toContain(VALUE);
  });

  it('refuses to delete a secret a token needs, answers not_found for an unknown name and refuses a non-admin token', async () => {
    const needed = await callRpc(gateway.url, gateway.tokens.admin, 'secrets.delete', {
      name: 'gateway.tokens.admin.secret',
    });
    expect(needed.error).toMatchObject({ message: expect.stringContaining('Cannot delete secret') });
    expect((await callRpc(gateway.url, gateway.tokens.admin, 'secrets.list')).result).toEqual({
      names: expect.arrayContaining(['gateway.tokens.admin.secret']),
    });
    const unknown = await callRpc(gateway.url, gateway.tokens.admin, 'secrets.delete', { name: 'NOPE' });
    expect(unknown.error).toMatchObject({ message: 'Secret not found: NOPE' });
    const refused = await callRpc(gateway.url, gateway.tokens.rpc, 'secrets.list');
    expect(refused.error).toMatchObject({ message: "Insufficient scope: requires 'admin'" });
  });
});
