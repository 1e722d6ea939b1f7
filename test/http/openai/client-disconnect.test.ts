// A client that goes away mid-stream aborts the turn: the gateway closes its upstream connection to the LLM.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from './route-fixture.js';

/** A TCP relay in front of the fake LLM that records when the gateway's side of each connection closes. */
async function startRelay(
  target: URL,
): Promise<{ url: string; closedAt: number[]; open: () => number; close: () => Promise<void> }> {
  const closedAt: number[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    sockets.add(inbound);
    const outbound = connect(Number(target.port), target.hostname);
    sockets.add(outbound);
    inbound.pipe(outbound);
    outbound.pipe(inbound);
    inbound.on('close', () => {
      closedAt.push(Date.now());
      sockets.delete(inbound);
      outbound.destroy();
    });
    outbound.on('close', () => {
      sockets.delete(outbound);
      inbound.destroy();
    });
    inbound.on('error', () => undefined);
    outbound.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    closedAt,
    open: () => [...sockets].length,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}

describe('client disconnect', () => {
  let llm: FakeLlm;
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let fx: RouteFixture;

  beforeAll(async () => {
    llm = await startFakeLlm();
    relay = await startRelay(new URL(llm.url));
    // Stored transcripts, so the aborted turn's transcript can be read back.
    fx = await startRouteFixture({ llmBaseUrl: `${relay.url}/v1`, storeTranscripts: true });
  });
  afterAll(async () => {
    await fx.close();
    await relay.close();
    await llm.close();
  });

  it('aborts the upstream model request when a /v1 chat stream client disconnects', async () => {
    // Ten words, 400 ms apart: about four seconds of streaming if nobody stops it.
    llm.script({ text: 'one two three four five six seven eight nine ten', chunkDelayMs: 400 });
    const client = new OpenAI({ baseURL: `${fx.url}/v1`, apiKey: fx.tokens.api, maxRetries: 0 });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'local/small', stream: true, messages: [{ role: 'user', content: 'count' }] },
      { signal: controller.signal },
    );
    let contentChunks = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content !== undefined && chunk.choices[0].delta.content !== '') contentChunks += 1;
      if (contentChunks === 1) break;
    }
    const stoppedAt = Date.now();
    const closedBefore = relay.closedAt.length;
    expect(await waitFor(() => relay.closedAt.length > closedBefore, 2000)).toBe(true);
    expect((relay.closedAt.at(-1) ?? Infinity) - stoppedAt).toBeLessThan(2000);

    // The turn ended as aborted: the transcript holds the user message and no finished answer.
    const key = String(
      fx.db
        .prepare(
          "SELECT session_key FROM sessions WHERE session_key LIKE 'default:openai-api:openai:%' ORDER BY created_at DESC",
        )
        .pluck()
        .get(),
    );
    const rows = fx.db
      .prepare('SELECT role, content FROM session_messages WHERE session_key = ? ORDER BY id')
      .all(key) as { role: string; content: string }[];
    expect(rows[0]).toEqual({ role: 'user', content: 'count' });
    expect(rows.some((row) => row.content === 'one two three four five six seven eight nine ten')).toBe(false);
  });
});
