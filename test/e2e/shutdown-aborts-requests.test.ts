// End to end: closing the gateway ends the work of every request still in flight: their model calls are aborted at
// once, not left waiting for an upstream that would answer later.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';

describe('closing the gateway with requests in flight', () => {
  let llm: FakeLlm;
  let harness: Harness;
  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    harness = await startGateway({
      providers: { fake: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    });
  });
  afterAll(async () => {
    await llm?.close();
  });

  const complete = (content: string) =>
    fetch(`${harness.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${harness.tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content }] }),
    }).then(
      (response) => response.status,
      () => 'connection closed',
    );

  it('ends every held model call when it closes, not when the upstream would answer', async () => {
    expect(await complete('answered before the close')).toBe(200);
    const never = new Promise<void>(() => undefined);
    llm.script({ text: 'never sent', heldUntil: never }, { text: 'never sent', heldUntil: never });
    const before = llm.chatRequests().length;
    const first = complete('first held');
    const second = complete('second held');
    await expect.poll(() => llm.chatRequests().length).toBe(before + 2);

    await harness.close();

    const held = llm.chatRequests().slice(before);
    await expect.poll(() => held.map((request) => request.closedByClient)).toEqual([true, true]);
    for (const status of await Promise.all([first, second])) expect(status).not.toBe(200);
  });
});
