// Turns waiting for one session: at most gateway.maxWaitingTurnsPerSession queue behind the running one; more are refused.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, TOKENS, type Harness } from '../support/gateway-harness.js';
import { connectOpen, type Frame, type TestSocket } from '../support/ws-client.js';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
});
afterAll(async () => {
  await llm.close();
});

let harness: Harness | undefined;
const sockets: TestSocket[] = [];
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  await harness?.close();
  harness = undefined;
  llm.reset();
});

const sessionKey = { tenantId: 'default', userId: 'rpc-client', channelId: 'test', peerId: 'busy' };

describe('turns waiting for a session', () => {
  it('refuses a turn past gateway.maxWaitingTurnsPerSession with unavailable and retryAfterMs; the queued ones run', async () => {
    harness = await startGateway({
      gateway: { maxWaitingTurnsPerSession: 1 },
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512 }],
        },
      },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    });
    let release = (): void => {};
    llm.script({ text: 'First.', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    const socket = await connectOpen(harness.wsUrl, { token: TOKENS.rpc });
    sockets.push(socket);
    const first = socket.call('agent.execute', { message: 'one', sessionKey });
    await expect.poll(() => llm.chatRequests().length, { timeout: 5_000 }).toBe(1);

    // The first turn holds the session; of the next two, one may wait and the other is refused at once.
    const later: Promise<Frame>[] = [
      socket.call('agent.execute', { message: 'two', sessionKey }),
      socket.call('agent.execute', { message: 'three', sessionKey }),
    ];
    const refused = await Promise.race(later.map(async (answer, index) => ({ index, frame: await answer })));
    expect(refused.frame.error).toMatchObject({
      message: expect.stringContaining('gateway.maxWaitingTurnsPerSession'),
      data: { kind: 'unavailable', retryAfterMs: expect.any(Number) },
    });
    // Another session of the same token is not held up.
    const other = await socket.call('agent.execute', {
      message: 'elsewhere',
      sessionKey: { ...sessionKey, peerId: 'other' },
    });
    expect(other.result).toMatchObject({ response: 'Echo: elsewhere' });

    release();
    expect((await first).result).toMatchObject({ response: 'First.' });
    const queued = await later[1 - refused.index];
    expect(queued?.result).toMatchObject({ finishReason: 'stop' });
  });
});
