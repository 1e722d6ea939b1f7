// An EventSource on /api/chat/stream that never closes itself sees exactly one turn: the reconnect after done gets 204.
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';

/** Resolves once `check` holds; the test's own timeout bounds the wait. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('e2e: /api/chat/stream with an EventSource client', () => {
  let llm: FakeLlm;
  let gateway: Harness;

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });

  it('runs the turn once; the automatic reconnect after done is answered 204 and the client stops', async () => {
    llm.script({ deltas: ['one ', 'answer'] });
    const source = new EventSource(
      `${gateway.url}/api/chat/stream?message=${encodeURIComponent('just once')}&token=${gateway.tokens.rpc}`,
    );
    const events: string[] = [];
    const errors: (number | undefined)[] = [];
    let opens = 0;
    source.addEventListener('open', () => {
      opens += 1;
    });
    for (const name of ['token', 'done']) source.addEventListener(name, () => events.push(name));
    source.addEventListener('error', (event) => errors.push(event.code));
    try {
      // The client reconnects by itself after done (3 s by default); a second turn would open the stream again.
      await until(() => source.readyState === source.CLOSED || opens > 1);
    } finally {
      source.close();
    }
    expect(opens).toBe(1);
    expect(events).toEqual(['token', 'token', 'done']);
    // The stream ending schedules a reconnect (no code), which the gateway refuses with 204.
    expect(errors).toEqual([undefined, 204]);
    expect(llm.chatRequests()).toHaveLength(1);

    const history = (await (
      await fetch(`${gateway.url}/api/chat/history`, { headers: { authorization: `Bearer ${gateway.tokens.rpc}` } })
    ).json()) as {
      messages: { role: string; content: string }[];
    };
    expect(history.messages.filter((message) => message.role === 'user')).toEqual([
      expect.objectContaining({ content: 'just once' }),
    ]);
  }, 15_000);
});
