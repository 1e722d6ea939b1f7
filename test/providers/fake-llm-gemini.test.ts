// The fake LLM server's Gemini wire, driven by plain fetch: the three answer forms, errors and embeddings.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeVector, startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';

describe('fake LLM server: Gemini wire', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm({ apiKey: 'gk' });
  });
  afterAll(async () => {
    await llm.close();
  });
  beforeEach(() => llm.reset());

  const post = (path: string, body: unknown, key = 'gk') =>
    fetch(`${llm.geminiBaseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
      body: JSON.stringify(body),
    });
  const contents = [{ role: 'user', parts: [{ text: 'ping' }] }];

  it('answers generateContent with one response: echo text, STOP and usage', async () => {
    const response = await post('/models/gemini-2.5-flash:generateContent', { contents });
    expect(await response.json()).toMatchObject({
      candidates: [{ content: { role: 'model', parts: [{ text: 'Echo: ping' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: expect.any(Number), candidatesTokenCount: expect.any(Number) },
      modelVersion: 'gemini-2.5-flash',
    });
    expect(llm.chatRequests()[0]).toMatchObject({ endpoint: 'google-gemini', isStream: false });
  });

  it('streams SSE chunks with CRLF line ends and usage on the last chunk only, or a JSON array without alt=sse', async () => {
    llm.script({
      text: 'a b',
      toolCalls: [{ name: 'lookup', arguments: { q: 1 } }],
      usage: { inputTokens: 5, outputTokens: 2, cacheReadTokens: 3 },
    });
    const sse = await (await post('/models/m:streamGenerateContent?alt=sse', { contents })).text();
    const frames: unknown[] = sse
      .split('\r\n\r\n')
      .filter((frame) => frame.length > 0)
      .map((frame) => JSON.parse(frame.replace(/^data: /, '')));
    const withoutUsage = expect.not.objectContaining({ usageMetadata: expect.anything() });
    expect(frames).toEqual([
      withoutUsage,
      withoutUsage,
      expect.objectContaining({
        candidates: [
          expect.objectContaining({
            content: { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 1 } } }] },
            finishReason: 'STOP',
          }),
        ],
        usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7, cachedContentTokenCount: 3 },
      }),
    ]);
    llm.script({ text: 'c d' });
    const array: unknown = await (await post('/models/m:streamGenerateContent', { contents })).json();
    expect(array).toEqual([
      expect.objectContaining({
        candidates: [expect.objectContaining({ content: { role: 'model', parts: [{ text: 'c ' }] } })],
      }),
      expect.objectContaining({
        candidates: [
          expect.objectContaining({ content: { role: 'model', parts: [{ text: 'd' }] }, finishReason: 'STOP' }),
        ],
      }),
    ]);
  });

  it("answers errors in Gemini's envelope, a missing key with 401, and an error frame mid-stream", async () => {
    const unauthorized = await post('/models/m:generateContent', { contents }, 'wrong');
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toEqual({
      error: { code: 401, message: 'invalid api key', status: 'UNAUTHENTICATED' },
    });
    llm.script({ status: 429, headers: { 'retry-after': '4' } });
    const limited = await post('/models/m:streamGenerateContent?alt=sse', { contents });
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '4']);
    expect(await limited.json()).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
    llm.script({ text: 'x y', streamError: { afterChunks: 1, status: 503 } });
    const cut = await (await post('/models/m:streamGenerateContent?alt=sse', { contents })).text();
    expect(cut).toContain('"status":"UNAVAILABLE"');
    expect(cut).not.toContain('"y"');
  });

  it('embeds through embedContent and batchEmbedContents from the embeddings queue', async () => {
    const single = await post('/models/e:embedContent', { content: { parts: [{ text: 'a' }] } });
    expect(await single.json()).toEqual({ embedding: { values: fakeVector('a', 8) } });
    llm.script({ endpoint: 'embeddings', vectors: [[1], [2]] });
    const batch = await post('/models/e:batchEmbedContents', {
      requests: [
        { model: 'models/e', content: { parts: [{ text: 'a' }] } },
        { model: 'models/e', content: { parts: [{ text: 'b' }] } },
      ],
    });
    expect(await batch.json()).toEqual({ embeddings: [{ values: [1] }, { values: [2] }] });
    expect(llm.requests.map((request) => request.endpoint)).toEqual(['gemini-embeddings', 'gemini-embeddings']);
  });
});
