// POST /v1/embeddings through the openai SDK (float and base64) and raw HTTP, with and without an embedder.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { float32Base64 } from '../../../src/http/openai/embeddings.js';
import { fakeVector, startFakeLlm, type FakeLlm } from '../../support/fake-llm-server.js';
import { startRouteFixture, type RouteFixture } from './route-fixture.js';

function decodeFloat32(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64');
  const values: number[] = [];
  for (let offset = 0; offset < bytes.length; offset += 4) values.push(bytes.readFloatLE(offset));
  return values;
}

describe('POST /v1/embeddings', () => {
  let llm: FakeLlm;
  let fx: RouteFixture;
  let client: OpenAI;
  beforeAll(async () => {
    llm = await startFakeLlm({ embeddingDimensions: 8 });
    fx = await startRouteFixture({ llmBaseUrl: llm.baseUrl, hasEmbeddings: true });
    client = new OpenAI({ baseURL: `${fx.url}/v1`, apiKey: fx.tokens.api, maxRetries: 0 });
  });
  afterAll(async () => {
    await fx.close();
    await llm.close();
  });

  const post = async (body: unknown, target = fx) => {
    const response = await fetch(`${target.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.tokens.api}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('returns one float vector per input with its index, the provider model and estimated usage', async () => {
    const { status, body } = await post({
      model: 'text-embedding-3-small',
      input: ['hello', 'worlds!!'],
      encoding_format: 'float',
    });
    expect(status).toBe(200);
    const expected = [fakeVector('hello', 8), fakeVector('worlds!!', 8)];
    expect(body).toMatchObject({ object: 'list', model: 'embed-small', usage: { prompt_tokens: 4, total_tokens: 4 } });
    const data = body.data as { object: string; index: number; embedding: number[] }[];
    expect(data.map((item) => [item.object, item.index])).toEqual([
      ['embedding', 0],
      ['embedding', 1],
    ]);
    data.forEach((item, index) =>
      item.embedding.forEach((value, dim) => expect(value).toBeCloseTo(expected[index]?.[dim] ?? Number.NaN, 6)),
    );
  });

  it('accepts a single string input', async () => {
    const { body } = await post({ model: 'm', input: 'abc' });
    expect((body.data as unknown[]).length).toBe(1);
    expect(body.usage).toEqual({ prompt_tokens: 1, total_tokens: 1 });
  });

  it('encodes base64 as little-endian float32 that decodes back to the float vectors', async () => {
    const floats = await post({ model: 'm', input: ['same text'], encoding_format: 'float' });
    const encoded = await post({ model: 'm', input: ['same text'], encoding_format: 'base64' });
    const vector = (floats.body.data as { embedding: number[] }[])[0]?.embedding ?? [];
    const base64 = (encoded.body.data as { embedding: string }[])[0]?.embedding ?? '';
    expect(typeof base64).toBe('string');
    expect(base64).toBe(float32Base64(vector));
    expect(decodeFloat32(base64)).toEqual(vector.map((value) => Math.fround(value)));
  });

  it('serves the openai SDK in both encodings with the same numbers', async () => {
    const viaBase64 = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['sdk'] });
    const viaFloat = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['sdk'],
      encoding_format: 'float',
    });
    expect(viaBase64.data[0]?.embedding).toEqual(viaFloat.data[0]?.embedding.map((value) => Math.fround(value)));
    expect(viaBase64.model).toBe('embed-small');
  });

  it('refuses unknown fields and bad input with 400 naming the param', async () => {
    expect(await post({ model: 'm', input: 'x', input_type: 'query' })).toMatchObject({
      status: 400,
      body: { error: { param: 'input_type', type: 'invalid_request_error' } },
    });
    expect(await post({ model: 'm', input: 'x', dimensions: 0 })).toMatchObject({
      status: 400,
      body: { error: { param: 'dimensions', type: 'invalid_request_error' } },
    });
    expect(await post({ model: 'm', input: [1, 2] })).toMatchObject({
      status: 400,
      body: { error: { param: 'input' } },
    });
    expect(await post({ model: 'm', input: [] })).toMatchObject({ status: 400, body: { error: { param: 'input' } } });
    expect(await post({ model: 'm', input: 'x', encoding_format: 'int8' })).toMatchObject({
      status: 400,
      body: { error: { param: 'encoding_format' } },
    });
    expect(await post({ input: 'x' })).toMatchObject({ status: 400, body: { error: { param: 'model' } } });
  });

  it('answers 404 not_found_error `No embedding provider configured` without an embedder', async () => {
    const bare = await startRouteFixture({ llmBaseUrl: llm.baseUrl });
    try {
      expect(await post({ model: 'm', input: 'x' }, bare)).toEqual({
        status: 404,
        body: {
          error: { message: 'No embedding provider configured', type: 'not_found_error', param: null, code: null },
        },
      });
    } finally {
      await bare.close();
    }
  });
});
