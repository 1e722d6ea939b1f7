// The Google Gemini wire: streamGenerateContent?alt=sse for chat, embedContent / batchEmbedContents for embeddings.
import type { TranscriptMessage } from '../transcript.js';
import { systemPromptOf } from './decoding.js';
import { protocolError } from './errors.js';
import { GeminiDecoder } from './google-gemini-decoder.js';
import type { WireHttp } from './http.js';
import { callJson, streamCall } from './stream-call.js';
import type {
  WireAdapter,
  WireCallRequest,
  WireEmbedRequest,
  WireEmbedResult,
  WireSetup,
  WireToolChoice,
} from './types.js';

/**
 * Gemini 3 refuses a replayed functionCall without the thoughtSignature it was sent with. Our transcript does
 * not keep signatures, so replays carry the sentinel Google documents for history it did not produce.
 */
export const GEMINI_SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** Model paths are built once per model id; more distinct ids than this start the cache over. */
const MODEL_CACHE_MAX = 256;

type GeminiPart =
  | { text: string }
  | { functionCall: { name: string; args: unknown }; thoughtSignature?: string }
  | { functionResponse: { name: string; response: { output: string } | { error: string } } };

interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

function objectArgs(input: unknown): unknown {
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {};
}

/**
 * The transcript as Gemini contents: the assistant is `model`; consecutive tool results become one user
 * content of functionResponse parts (Gemini pairs them with the calls by name and order), a failed tool's
 * text goes under `error` and a successful one under `output`, the keys Gemini reads.
 */
export function geminiContents(transcript: readonly TranscriptMessage[], needsSignature: boolean): GeminiContent[] {
  const contents: GeminiContent[] = [];
  let results: GeminiPart[] | undefined;
  for (const message of transcript) {
    if (message.role !== 'tool') results = undefined;
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        contents.push({ role: 'user', parts: [{ text: message.content }] });
        break;
      case 'assistant': {
        const parts: GeminiPart[] = message.content.length > 0 ? [{ text: message.content }] : [];
        message.toolCalls?.forEach((call, index) => {
          const functionCall = { name: call.name, args: objectArgs(call.input) };
          // Only the first call of a turn carries a signature, as in Gemini's own answers.
          parts.push(
            needsSignature && index === 0
              ? { functionCall, thoughtSignature: GEMINI_SKIP_SIGNATURE }
              : { functionCall },
          );
        });
        if (parts.length > 0) contents.push({ role: 'model', parts });
        break;
      }
      case 'tool': {
        const part: GeminiPart = {
          functionResponse: {
            name: message.toolName,
            response: message.isError ? { error: message.content } : { output: message.content },
          },
        };
        if (results === undefined) {
          results = [part];
          contents.push({ role: 'user', parts: results });
        } else {
          results.push(part);
        }
        break;
      }
    }
  }
  return contents;
}

function functionCallingConfig(choice: WireToolChoice): Record<string, unknown> {
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'required') return { mode: 'ANY' };
  return { mode: 'ANY', allowedFunctionNames: [choice.name] };
}

export function geminiBody(request: WireCallRequest, needsSignature: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { contents: geminiContents(request.messages, needsSignature) };
  const system = systemPromptOf(request.system, request.messages);
  if (system !== undefined) body.systemInstruction = { parts: [{ text: system }] };
  if (request.tools.length > 0) {
    // parametersJsonSchema takes standard JSON Schema; `parameters` would need the OpenAPI subset.
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          parametersJsonSchema: tool.inputSchema,
        })),
      },
    ];
    if (request.toolChoice !== undefined)
      body.toolConfig = { functionCallingConfig: functionCallingConfig(request.toolChoice) };
  }
  const { sampling } = request;
  const config: Record<string, unknown> = {};
  if (sampling.temperature !== undefined) config.temperature = sampling.temperature;
  if (sampling.topP !== undefined) config.topP = sampling.topP;
  if (sampling.maxOutputTokens !== undefined) config.maxOutputTokens = sampling.maxOutputTokens;
  if (sampling.stop !== undefined) config.stopSequences = sampling.stop;
  if (sampling.seed !== undefined) config.seed = sampling.seed;
  if (sampling.presencePenalty !== undefined) config.presencePenalty = sampling.presencePenalty;
  if (sampling.frequencyPenalty !== undefined) config.frequencyPenalty = sampling.frequencyPenalty;
  const format = request.responseFormat;
  if (format !== undefined && format.type !== 'text') {
    config.responseMimeType = 'application/json';
    if (format.type === 'json_schema') config.responseJsonSchema = format.schema;
  }
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return body;
}

/** The key as `x-goog-api-key`; no header at all without one. */
export function geminiAuth(apiKey: string | undefined): Record<string, string> {
  return apiKey === undefined ? {} : { 'x-goog-api-key': apiKey };
}

interface GeminiModelPaths {
  stream: string;
  generate: string;
  embed: string;
  batchEmbed: string;
  /** `models/<id>`, as batchEmbedContents names the model of each request. */
  name: string;
  needsSignature: boolean;
}

interface GeminiEmbeddings {
  embedding?: { values?: number[] };
  embeddings?: { values?: number[] }[];
}

function embeddingValues(body: unknown, expected: number): number[][] {
  if (typeof body !== 'object' || body === null) throw protocolError('Gemini embedding answer is not an object');
  const answer: GeminiEmbeddings = body;
  const items = Array.isArray(answer.embeddings)
    ? answer.embeddings
    : answer.embedding === undefined
      ? []
      : [answer.embedding];
  if (items.length !== expected) throw protocolError(`Gemini embedding answer has no ${expected} vectors`);
  return items.map((item) => {
    if (!Array.isArray(item.values)) throw protocolError('Gemini embedding answer has a malformed item');
    return item.values;
  });
}

export function createGoogleGeminiAdapter(http: WireHttp, setup: WireSetup): WireAdapter {
  const paths = new Map<string, GeminiModelPaths>();
  function pathsOf(modelId: string): GeminiModelPaths {
    let entry = paths.get(modelId);
    if (entry === undefined) {
      const id = modelId.startsWith('models/') ? modelId.slice('models/'.length) : modelId;
      const base = `${http.basePath}/models/${encodeURIComponent(id)}`;
      entry = {
        stream: `${base}:streamGenerateContent?alt=sse`,
        generate: `${base}:generateContent`,
        embed: `${base}:embedContent`,
        batchEmbed: `${base}:batchEmbedContents`,
        name: `models/${id}`,
        needsSignature: id.startsWith('gemini-3'),
      };
      if (paths.size >= MODEL_CACHE_MAX) paths.clear();
      paths.set(modelId, entry);
    }
    return entry;
  }
  return {
    protocol: 'google-gemini',
    http,
    stream(request) {
      const model = pathsOf(request.modelId);
      return streamCall(
        http,
        request.stream === false ? model.generate : model.stream,
        JSON.stringify(geminiBody(request, model.needsSignature)),
        request.signal,
        new GeminiDecoder(),
      );
    },
    async embed({ modelId, texts, dimensions, signal }: WireEmbedRequest): Promise<WireEmbedResult> {
      if (texts.length === 0) return { vectors: [], model: modelId };
      const model = pathsOf(modelId);
      const [single] = texts;
      const sized = dimensions === undefined ? {} : { outputDimensionality: dimensions };
      const answer =
        texts.length === 1 && single !== undefined
          ? await callJson(
              http,
              model.embed,
              JSON.stringify({ content: { parts: [{ text: single }] }, ...sized }),
              signal,
            )
          : await callJson(
              http,
              model.batchEmbed,
              JSON.stringify({
                requests: texts.map((text) => ({ model: model.name, content: { parts: [{ text }] }, ...sized })),
              }),
              signal,
            );
      // Gemini does not name the model in its answer.
      return { vectors: embeddingValues(answer, texts.length), model: modelId };
    },
    unsupported: setup.unsupported,
    close: () => http.close(),
  };
}
