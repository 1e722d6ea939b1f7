// End to end: a client that stops reading a streamed completion holds the upstream back (backpressure), so the gateway never buffers a reply without bound.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm, type RecordedRequest } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';

/** Far more than every socket buffer between the upstream and the client can hold together. */
const HUGE_CHARS = 128_000_000;
const DELTA_CHARS = 16_384;
/** Time the gateway would need, many times over, to read the whole reply when nothing holds it back. */
const SETTLE_MS = 1_500;

/** Opens a raw keep-alive connection, sends one request and stops reading once the response has begun. */
function openPausedStream(url: string, path: string, token: string, body: unknown): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nauthorization: Bearer ${token}\r\n` +
          `content-type: application/json\r\ncontent-length: ${payload.length}\r\n\r\n`,
      );
      socket.write(payload);
    });
    socket.once('error', reject);
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      if (!chunk.toString('latin1').startsWith('HTTP/1.1 200')) reject(new Error(chunk.toString('latin1')));
      else resolve(socket);
    });
  });
}

describe('a streamed completion whose client stops reading', () => {
  let llm: FakeLlm;
  let harness: Harness;
  beforeAll(async () => {
    llm = await startFakeLlm({ models: ['fake-model'] });
    harness = await startGateway({
      providers: {
        fake: {
          type: 'openai-compatible',
          baseUrl: llm.baseUrl,
          // Output limits well above the reply (bytes, and 8 characters a token), so only the client's reading paces it.
          maxResponseBytes: 1_000_000_000,
          models: [{ id: 'fake-model', maxTokens: HUGE_CHARS / 8, contextWindow: HUGE_CHARS / 4 }],
        },
      },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    });
  });
  afterAll(async () => {
    await harness?.close();
    await llm?.close();
  });

  const upstream = (): RecordedRequest | undefined => llm.chatRequests().at(-1);

  it('holds the upstream back while the client does not read, and lets it go on once the client reads again', async () => {
    llm.script({ huge: { chars: HUGE_CHARS, deltaChars: DELTA_CHARS } });
    const socket = await openPausedStream(harness.url, '/v1/chat/completions', harness.tokens.api, {
      model: 'default',
      stream: true,
      messages: [{ role: 'user', content: 'Everything, slowly' }],
    });
    try {
      await expect.poll(() => upstream()?.isWaitingForDrain, { timeout: 20_000 }).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const held = upstream();
      // Still blocked: the gateway stopped reading the upstream rather than queueing the reply for the client.
      expect(held?.isWaitingForDrain).toBe(true);
      expect(held?.closedByClient).toBe(false);
      const heldChars = held?.streamedChars ?? Number.NaN;
      expect(heldChars).toBeLessThan(HUGE_CHARS / 4);

      socket.resume();
      await expect.poll(() => upstream()?.streamedChars ?? 0, { timeout: 20_000 }).toBeGreaterThan(heldChars);
    } finally {
      socket.destroy();
    }
    await expect.poll(() => upstream()?.closedByClient, { timeout: 20_000 }).toBe(true);
    expect(upstream()?.streamedChars).toBeLessThan(HUGE_CHARS);
  });
});
