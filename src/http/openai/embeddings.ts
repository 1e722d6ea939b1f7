// POST /v1/embeddings: vectors from the configured embedding provider, as float arrays or base64 float32.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { notFound } from '../../errors.js';
import { requestSignal } from '../../server/index.js';
import { DEFAULT_TENANT } from '../../sessions/index.js';
import type { OpenAiContext } from './types.js';
import { parseBody } from './validation.js';

/** OpenAI's own cap on inputs per request; it bounds the work one request can ask for. */
export const MAX_EMBEDDING_INPUTS = 2048;

/** The most `dimensions` a request may ask for (the largest common models make 3072 or 4096); it bounds the answer's size. */
export const MAX_EMBEDDING_DIMENSIONS = 8192;

export const embeddingsRequest = z.strictObject({
  model: z.string().min(1, 'must not be empty'),
  input: z.union(
    [
      z.string(),
      z
        .array(z.string())
        .min(1, 'must not be empty')
        .max(MAX_EMBEDDING_INPUTS, `must hold at most ${MAX_EMBEDDING_INPUTS} strings`),
    ],
    { error: 'expected a string or an array of strings' },
  ),
  encoding_format: z.enum(['float', 'base64']).optional(),
  // Passed to the embedder, which makes that many or refuses (a provider's answer of another length is refused too).
  dimensions: z
    .number()
    .int('must be a positive integer')
    .positive('must be a positive integer')
    .max(MAX_EMBEDDING_DIMENSIONS, `must be at most ${MAX_EMBEDDING_DIMENSIONS}`)
    .optional(),
});

/** DESIGN §3: base64 of the little-endian float32 bytes, OpenAI's format (the openai SDK asks for it by default). */
export function float32Base64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

export function registerEmbeddings(scope: FastifyInstance, ctx: OpenAiContext): void {
  scope.post('/embeddings', async function createEmbeddings(request, reply) {
    const body = parseBody(embeddingsRequest, request.body);
    // Read per request: `embeddings:` applies live.
    const embedder = ctx.embedder();
    if (embedder === undefined) throw notFound('No embedding provider configured');
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    // The configured embedder answers whatever `model` names; the response reports the model it used.
    // The calling token pays (its token budgets count the tokens), in the default tenant: /v1 keys live there.
    const payer = { tokenId: ctx.auth.callerOf(request).clientId, tenantId: DEFAULT_TENANT };
    const result = await embedder.embed(inputs, requestSignal(reply, ctx.shutdownSignal), {
      payer,
      ...(body.dimensions === undefined ? {} : { dimensions: body.dimensions }),
    });
    const isBase64 = body.encoding_format === 'base64';
    // Spec "Embeddings": an estimate, ceil(characters / 4).
    const promptTokens = Math.ceil(inputs.reduce((sum, text) => sum + text.length, 0) / 4);
    return {
      object: 'list',
      data: result.vectors.map((vector, index) => ({
        object: 'embedding',
        embedding: isBase64 ? float32Base64(vector) : vector,
        index,
      })),
      model: result.model,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    };
  });
}
