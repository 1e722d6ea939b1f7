// Embedders: the configured one through the provider's /embeddings endpoint, and the built-in hashing embedder.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { validateConfig, type ConfigInput } from '../../src/config/index.js';
import { isGatewayError } from '../../src/errors.js';
import { createEmbedder, createHashingEmbedder, hashingVector } from '../../src/providers/index.js';
import { PROVIDER_LIMITS } from '../../src/providers/limits.js';
import { fakeVector, startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { silentLog } from './router-fixture.js';

const signal = new AbortController().signal;

function embedderFor(input: Pick<ConfigInput, 'providers' | 'embeddings'>) {
  const config = validateConfig(input, 'test');
  return createEmbedder({ embeddings: config.embeddings, providers: config.providers, log: silentLog });
}

const cosine = (a: readonly number[], b: readonly number[]): number =>
  a.reduce((sum, value, index) => sum + value * (b[index] ?? 0), 0);

describe('configured embedder', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm({ embeddingDimensions: 16 });
  });
  afterAll(async () => {
    await llm.close();
  });
  beforeEach(() => llm.reset());

  it('is undefined when embeddings: is not configured', () => {
    expect(embedderFor({ providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl } } })).toBeUndefined();
  });

  it.each(['openai-compatible', 'openai'] as const)(
    'embeds through a %s provider and reports the served model id',
    async (type) => {
      const embedder = embedderFor({
        providers: { local: { type, baseUrl: llm.baseUrl, apiKey: 'k' } },
        embeddings: { provider: 'local', model: 'nomic-embed-text' },
      });
      expect(embedder?.model).toBe('nomic-embed-text');
      llm.script({ endpoint: 'embeddings', model: 'nomic-embed-text:v1.5' });
      const result = await embedder?.embed(['first text', 'second text'], signal);
      expect(result?.model).toBe('nomic-embed-text:v1.5');
      expect(result?.vectors).toHaveLength(2);
      expect(result?.vectors[0]?.[0]).toBeCloseTo(fakeVector('first text', 16)[0] ?? NaN, 5);
      expect(result?.vectors[1]?.[3]).toBeCloseTo(fakeVector('second text', 16)[3] ?? NaN, 5);
      expect(llm.requests[0]).toMatchObject({
        endpoint: 'embeddings',
        body: { model: 'nomic-embed-text', input: ['first text', 'second text'] },
      });
    },
  );

  it('answers an empty input without a request', async () => {
    const embedder = embedderFor({
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl } },
      embeddings: { provider: 'local', model: 'e' },
    });
    expect(await embedder?.embed([], signal)).toEqual({ vectors: [], model: 'e' });
    expect(llm.requests).toHaveLength(0);
  });

  it('reports an upstream failure as upstream_failed with the error kind, status and masked upstream message, and rethrows an abort', async () => {
    const embedder = embedderFor({
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl } },
      embeddings: { provider: 'local', model: 'e' },
    });
    llm.script({
      endpoint: 'embeddings',
      status: 503,
      errorMessage: 'embedder down for key sk-live-0123456789abcdefghijklmn',
    });
    const failure = await embedder?.embed(['x'], signal).catch((error: unknown) => error);
    expect(isGatewayError(failure) && failure.kind).toBe('upstream_failed');
    // DESIGN §3 "upstream failures": the provider's own message and status travel with the error, secrets masked.
    expect(isGatewayError(failure) && failure.message).toBe(
      'Embedding call to local/e failed: server (HTTP 503): embedder down for key ***',
    );
    expect(isGatewayError(failure) && failure.details).toMatchObject({ errorKind: 'server', statusCode: 503 });

    const controller = new AbortController();
    const reason = new Error('stop');
    llm.script({ endpoint: 'embeddings', delayMs: 5_000 });
    const pending = embedder?.embed(['x'], controller.signal);
    setTimeout(() => controller.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
  });

  it('asks the provider for the dimensions a caller wants (OpenAI dimensions, Gemini outputDimensionality)', async () => {
    const embedder = embedderFor({
      providers: {
        local: { type: 'openai-compatible', baseUrl: llm.baseUrl },
        gem: { type: 'google', baseUrl: llm.geminiBaseUrl, apiKey: 'k' },
      },
      embeddings: { provider: 'local', model: 'e' },
    });
    const result = await embedder?.embed(['a text'], signal, { dimensions: 4 });
    expect(result?.vectors[0]).toHaveLength(4);
    expect(llm.requests[0]?.body).toMatchObject({ model: 'e', dimensions: 4 });

    const gemini = embedderFor({
      providers: { gem: { type: 'google', baseUrl: llm.geminiBaseUrl, apiKey: 'k' } },
      embeddings: { provider: 'gem', model: 'gemini-embedding-001' },
    });
    expect((await gemini?.embed(['one'], signal, { dimensions: 3 }))?.vectors[0]).toHaveLength(3);
    expect(
      (await gemini?.embed(['one', 'two'], signal, { dimensions: 5 }))?.vectors.map((vector) => vector.length),
    ).toEqual([5, 5]);
    expect(llm.requests[1]?.body).toMatchObject({ outputDimensionality: 3 });
    expect(llm.requests[2]?.body).toMatchObject({
      requests: [{ outputDimensionality: 5 }, { outputDimensionality: 5 }],
    });
  });

  it('refuses an answer whose vectors are not the dimensions asked for, rather than pass them on', async () => {
    const embedder = embedderFor({
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl } },
      embeddings: { provider: 'local', model: 'e' },
    });
    llm.script({ endpoint: 'embeddings', vectors: [[0.6, 0.8]] });
    const failure = await embedder?.embed(['x'], signal, { dimensions: 4 }).catch((error: unknown) => error);
    expect(isGatewayError(failure) && failure.kind).toBe('upstream_failed');
    expect(isGatewayError(failure) && failure.message).toBe(
      "Embedding provider 'local' answered 2 dimensions, not the 4 asked for in 'dimensions'",
    );
  });

  it('refuses at creation a provider type without an embeddings endpoint', () => {
    expect(() =>
      embedderFor({
        providers: { claude: { type: 'anthropic', apiKey: 'k' } },
        embeddings: { provider: 'claude', model: 'none' },
      }),
    ).toThrow(/no embeddings endpoint/);
  });
});

describe('hashing embedder', () => {
  it('is deterministic, 256-dimensional and L2-normalised', async () => {
    const embedder = createHashingEmbedder();
    expect(embedder.model).toBe('hashing-256');
    const first = await embedder.embed(['The quick brown fox', 'the QUICK brown fox!'], signal);
    const second = await createHashingEmbedder().embed(['The quick brown fox'], signal);
    expect(first.model).toBe('hashing-256');
    expect(first.vectors[0]).toHaveLength(256);
    expect(first.vectors[0]).toEqual(second.vectors[0]);
    expect(first.vectors[1]).toEqual(first.vectors[0]);
    expect(Math.hypot(...(first.vectors[0] ?? []))).toBeCloseTo(1, 12);
  });

  it('places texts sharing words closer than unrelated texts', () => {
    const query = hashingVector('where did I park the car');
    const related = hashingVector('I parked the car on level 3');
    const unrelated = hashingVector('quarterly revenue forecast spreadsheet');
    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated));
  });

  it('places other forms of a word close through character trigrams, and ignores one- and two-letter latin words', () => {
    // No word in common: only the trigrams of allerg- relate the two.
    expect(cosine(hashingVector('allergic'), hashingVector('allergy'))).toBeGreaterThan(0.4);
    expect(cosine(hashingVector('allergic'), hashingVector('holiday'))).toBeLessThan(0.2);
    expect(hashingVector('a in is to of', 16)).toEqual(new Array(16).fill(0));
    expect(hashingVector('marathon in berlin')).toEqual(hashingVector('marathon berlin'));
  });

  it('gives a zero vector for text without words and honours the dimensions option', async () => {
    expect(hashingVector('  ?! ', 8)).toEqual(new Array(8).fill(0));
    const small = createHashingEmbedder({ dimensions: 32 });
    expect(small.model).toBe('hashing-32');
    expect((await small.embed(['naïve café 42'], signal)).vectors[0]).toHaveLength(32);
    expect(() => createHashingEmbedder({ dimensions: 0 })).toThrow(TypeError);
  });

  it('makes the dimensions a call asks for, and refuses more than it makes, naming the limit', async () => {
    const embedder = createHashingEmbedder();
    const sized = await embedder.embed(['the quick brown fox'], signal, { dimensions: 64 });
    expect(sized.model).toBe('hashing-64');
    expect(sized.vectors[0]).toEqual(hashingVector('the quick brown fox', 64));
    expect(
      (await embedder.embed(['fox'], signal, { dimensions: PROVIDER_LIMITS.hashingEmbedderMaxDimensions })).vectors[0],
    ).toHaveLength(PROVIDER_LIMITS.hashingEmbedderMaxDimensions);
    const refused = await embedder
      .embed(['fox'], signal, { dimensions: PROVIDER_LIMITS.hashingEmbedderMaxDimensions + 1 })
      .catch((error: unknown) => error);
    expect(isGatewayError(refused) && refused.kind).toBe('invalid_params');
    expect(isGatewayError(refused) && refused.details.param).toBe('dimensions');
    expect(isGatewayError(refused) && refused.message).toBe(
      `Invalid value for 'dimensions': the built-in hashing embedder makes at most ${PROVIDER_LIMITS.hashingEmbedderMaxDimensions} dimensions`,
    );
  });
});
