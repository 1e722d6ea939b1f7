// A scripted fake LLM server on 127.0.0.1:0 speaking the OpenAI Chat Completions, Anthropic Messages and Gemini wires.
//
//   const llm = await startFakeLlm();
//   llm.script({ text: 'Hello there', chunks: 3 }, { status: 500 });
//   ...point a provider's baseUrl at llm.baseUrl (`<url>/v1`)...
//   llm.requests[0].body   // what the gateway sent
//   await llm.close();
//
// Routes: POST /v1/chat/completions, POST /v1/messages, POST /v1/embeddings, GET /v1/models, POST /api/show (Ollama),
// GET /api/tags (Ollama's model list, with `ollamaTags: true`),
// POST /v1/audio/transcriptions (multipart; the parsed form is the recorded body, see fake-llm-audio.ts),
// and Gemini's POST /v1beta/models/<model>:{generateContent,streamGenerateContent,embedContent,batchEmbedContents}
// (Gemini clients take `llm.geminiBaseUrl`).
// Scripted replies are consumed in order by the endpoint they target; an empty queue answers with the
// default reply (echo of the last user message, or `defaultReply`).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicError, answerMessages } from './fake-llm-anthropic.js';
import { answerTranscription, parseTranscriptionForm } from './fake-llm-audio.js';
import { answerGemini, answerGeminiEmbeddings, geminiError, geminiRoute } from './fake-llm-gemini.js';
import { answerChatCompletion, answerEmbeddings, answerModels, openAiError } from './fake-llm-openai.js';
import {
  echoReply,
  holdUntil,
  isRecord,
  pause,
  sendJson,
  type FakeEndpoint,
  type RecordedRequest,
  type ScriptEntry,
  type ScriptedReply,
} from './fake-llm-script.js';

export type { FakeEndpoint, RecordedRequest, ScriptEntry, ScriptedReply, ScriptedUsage } from './fake-llm-script.js';
export { fakeVector } from './fake-llm-openai.js';
export type { TranscriptionForm } from './fake-llm-audio.js';

export interface FakeLlmOptions {
  /** Ids listed by GET /v1/models. */
  models?: readonly string[];
  /** Length of the deterministic embedding vectors. */
  embeddingDimensions?: number;
  /** When set, requests without this key (Bearer or x-api-key) get 401. */
  apiKey?: string;
  /** The reply when the queue is empty; default: `Echo: <last user message>`. */
  defaultReply?: (request: RecordedRequest) => ScriptedReply;
  /** Keep at most this many recorded requests (oldest dropped); default unlimited. Benchmarks set it low. */
  maxRecordedRequests?: number;
  /** Extra fields per model id in GET /v1/models, e.g. `{ 'fake-model': { max_model_len: 4096 } }` (a served window). */
  modelFields?: Record<string, Record<string, unknown>>;
  /** Ollama's POST /api/show: the `parameters` text per model (e.g. `num_ctx 2048`); other models answer 404. */
  ollamaParameters?: Record<string, string>;
  /** Answer Ollama's GET /api/tags with `models` (as a local Ollama does); without it the route is 404. */
  ollamaTags?: boolean;
}

export interface FakeLlm {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `http://127.0.0.1:<port>/v1`, the provider baseUrl. */
  readonly baseUrl: string;
  /** `http://127.0.0.1:<port>/v1beta`, the baseUrl of a google provider. */
  readonly geminiBaseUrl: string;
  /** Every request received, oldest first. */
  readonly requests: RecordedRequest[];
  /** Appends replies to the queue. */
  script(...entries: ScriptEntry[]): void;
  /** Scripted replies not yet consumed. */
  pending(): number;
  /** The LLM (chat, messages and Gemini generate) requests only, oldest first. */
  chatRequests(): RecordedRequest[];
  setDefaultReply(reply: (request: RecordedRequest) => ScriptedReply): void;
  /** Empties the queue and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

const ROUTES: Record<string, FakeEndpoint> = {
  'POST /v1/chat/completions': 'openai-chat',
  'POST /chat/completions': 'openai-chat',
  'POST /v1/messages': 'anthropic-messages',
  'POST /messages': 'anthropic-messages',
  'POST /v1/embeddings': 'embeddings',
  'POST /embeddings': 'embeddings',
  'GET /v1/models': 'models',
  'GET /models': 'models',
  'POST /api/show': 'ollama-show',
  'GET /api/tags': 'ollama-tags',
  'POST /v1/audio/transcriptions': 'transcriptions',
  'POST /audio/transcriptions': 'transcriptions',
};

/** Each protocol answers errors in its own envelope. */
function answerError(endpoint: FakeEndpoint, res: ServerResponse, reply: ScriptedReply): void {
  if (endpoint === 'anthropic-messages') anthropicError(res, reply);
  else if (endpoint === 'google-gemini' || endpoint === 'gemini-embeddings') geminiError(res, reply);
  else openAiError(res, reply);
}

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

const GEMINI_METHODS: Record<string, FakeEndpoint> = {
  generateContent: 'google-gemini',
  streamGenerateContent: 'google-gemini',
  embedContent: 'gemini-embeddings',
  batchEmbedContents: 'gemini-embeddings',
};

function routeOf(
  method: string,
  path: string,
): { endpoint: FakeEndpoint; geminiModel?: string; geminiMethod?: string } | undefined {
  const fixed = ROUTES[`${method} ${path}`];
  if (fixed !== undefined) return { endpoint: fixed };
  const gemini = method === 'POST' ? geminiRoute(path) : undefined;
  const endpoint = gemini === undefined ? undefined : GEMINI_METHODS[gemini.method];
  return gemini === undefined || endpoint === undefined
    ? undefined
    : { endpoint, geminiModel: gemini.model, geminiMethod: gemini.method };
}

function hasKey(req: IncomingMessage, apiKey: string): boolean {
  return (
    req.headers.authorization === `Bearer ${apiKey}` ||
    req.headers['x-api-key'] === apiKey ||
    req.headers['x-goog-api-key'] === apiKey
  );
}

export async function startFakeLlm(options: FakeLlmOptions = {}): Promise<FakeLlm> {
  const models = options.models ?? ['fake-model'];
  const dimensions = options.embeddingDimensions ?? 8;
  let defaultReply = options.defaultReply ?? echoReply;
  const queue: ScriptEntry[] = [];
  const requests: RecordedRequest[] = [];

  function takeReply(request: RecordedRequest): ScriptedReply {
    const wanted =
      request.endpoint === 'embeddings' || request.endpoint === 'gemini-embeddings'
        ? 'embeddings'
        : request.endpoint === 'transcriptions'
          ? 'transcriptions'
          : 'chat';
    for (let index = 0; index < queue.length; index += 1) {
      const entry = queue[index];
      if (entry === undefined) continue;
      // A function entry answers chat requests only.
      const target = typeof entry === 'function' ? 'chat' : (entry.endpoint ?? 'chat');
      if (target !== wanted) continue;
      queue.splice(index, 1);
      return typeof entry === 'function' ? entry(request) : entry;
    }
    return wanted === 'chat' ? defaultReply(request) : {};
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [path = '/', query = ''] = (req.url ?? '/').split('?');
    const route = routeOf(req.method ?? 'GET', path);
    const raw = await readRaw(req);
    const form = route?.endpoint === 'transcriptions' ? await parseTranscriptionForm(req.headers, raw) : undefined;
    const body = route?.endpoint === 'transcriptions' ? form : parseJson(raw);
    if (route === undefined) {
      sendJson(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'not_found' } });
      return;
    }
    const { endpoint } = route;
    if (endpoint === 'ollama-tags' && options.ollamaTags !== true) {
      sendJson(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'not_found' } });
      return;
    }
    const request: RecordedRequest = {
      endpoint,
      method: req.method ?? 'GET',
      path,
      query,
      headers: req.headers,
      body,
      isStream:
        route.geminiMethod === undefined
          ? isRecord(body) && body.stream === true
          : route.geminiMethod === 'streamGenerateContent',
      receivedAt: Date.now(),
      remotePort: req.socket.remotePort,
      closedByClient: false,
      streamedChars: 0,
      isWaitingForDrain: false,
    };
    res.once('close', () => {
      if (!res.writableFinished) request.closedByClient = true;
    });
    requests.push(request);
    if (options.maxRecordedRequests !== undefined && requests.length > options.maxRecordedRequests) requests.shift();

    if (options.apiKey !== undefined && !hasKey(req, options.apiKey)) {
      answerError(endpoint, res, { status: 401, errorMessage: 'invalid api key' });
      return;
    }
    if (endpoint === 'models') {
      answerModels(res, models, options.modelFields);
      return;
    }
    if (endpoint === 'ollama-tags') {
      sendJson(res, 200, { models: models.map((name) => ({ name, model: name, size: 0, details: {} })) });
      return;
    }
    if (endpoint === 'ollama-show') {
      const name = isRecord(body) ? (body.model ?? body.name) : undefined;
      const parameters = typeof name === 'string' ? options.ollamaParameters?.[name] : undefined;
      if (parameters === undefined) sendJson(res, 404, { error: `model '${String(name)}' not found` });
      else sendJson(res, 200, { parameters, model_info: {} });
      return;
    }

    const reply = takeReply(request);
    if (reply.delayMs !== undefined && !(await pause(reply.delayMs, res))) return;
    if (reply.heldUntil !== undefined && !(await holdUntil(reply.heldUntil, res))) return;
    if (reply.dropConnection === true) {
      req.socket.destroy();
      return;
    }
    if (reply.status !== undefined && reply.status >= 400) {
      answerError(endpoint, res, reply);
      return;
    }
    if (endpoint === 'transcriptions') answerTranscription(form, res, reply);
    else if (endpoint === 'openai-chat') await answerChatCompletion(request, res, reply);
    else if (endpoint === 'anthropic-messages') await answerMessages(request, res, reply);
    else if (endpoint === 'google-gemini') await answerGemini(request, res, reply, route.geminiModel ?? 'fake-model');
    else if (endpoint === 'gemini-embeddings')
      answerGeminiEmbeddings(request, res, reply, route.geminiMethod ?? 'embedContent', dimensions);
    else answerEmbeddings(request, res, reply, dimensions);
  }

  const server: Server = createServer({ noDelay: true, keepAliveTimeout: 30_000 }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error), type: 'fake_llm_error' } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    baseUrl: `${url}/v1`,
    geminiBaseUrl: `${url}/v1beta`,
    requests,
    script: (...entries) => {
      queue.push(...entries);
    },
    pending: () => queue.length,
    chatRequests: () =>
      requests.filter(
        (request) =>
          request.endpoint === 'openai-chat' ||
          request.endpoint === 'anthropic-messages' ||
          request.endpoint === 'google-gemini',
      ),
    setDefaultReply: (reply) => {
      defaultReply = reply;
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
