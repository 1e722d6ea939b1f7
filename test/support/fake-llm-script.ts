// The fake LLM server's script language: scripted replies, recorded requests, and the helpers all wire protocols share.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/** Which protocol a request arrived on. */
export type FakeEndpoint =
  | 'openai-chat'
  | 'anthropic-messages'
  | 'google-gemini'
  | 'embeddings'
  | 'gemini-embeddings'
  | 'models'
  | 'ollama-show'
  | 'ollama-tags'
  | 'transcriptions';

export interface RecordedRequest {
  endpoint: FakeEndpoint;
  method: string;
  path: string;
  /** The query string without `?` (Gemini's `alt=sse`), '' when none. */
  query: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined for GET or an unparsable body); a transcription's parsed form (TranscriptionForm). */
  body: unknown;
  /** Whether the client asked for a streamed answer (`stream: true`). */
  isStream: boolean;
  receivedAt: number;
  /** The client's port: two requests on one keep-alive connection share it. */
  remotePort: number | undefined;
  /** Set once the client closed the connection before the answer was complete (an abort reached the server). */
  closedByClient: boolean;
  /** Content characters a `huge` reply wrote before it ended or was cut. */
  streamedChars: number;
  /** Whether a `huge` reply is waiting for `drain` now: the client stopped reading and the socket buffer is full. */
  isWaitingForDrain: boolean;
}

export interface ScriptedToolCall {
  /** Defaults to `call_<n>` (OpenAI) or `toolu_<n>` (Anthropic). */
  id?: string;
  name: string;
  /** An object is JSON-encoded; a string is sent verbatim (to script malformed arguments). */
  arguments: Record<string, unknown> | string;
}

/** OpenAI's convention: inputTokens is the whole prompt, cached tokens included (the Anthropic wire gets the uncached rest). */
export interface ScriptedUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export interface ScriptedReply {
  /**
   * Which requests consume this reply: `chat` (OpenAI chat completions and Anthropic messages, the default),
   * `embeddings`, or `transcriptions` (POST /v1/audio/transcriptions: `text` is the transcript).
   */
  endpoint?: 'chat' | 'embeddings' | 'transcriptions';
  text?: string;
  /** The exact text deltas to stream; overrides `text` and `chunks`. */
  deltas?: string[];
  /** Splits `text` into this many deltas of about equal length; default one delta per word. */
  chunks?: number;
  toolCalls?: ScriptedToolCall[];
  /** Missing counters are estimated: ceil(characters / 4) of the prompt and of the reply. */
  usage?: ScriptedUsage;
  /** Wire finish reason in OpenAI terms; mapped for Anthropic (stop→end_turn, tool_calls→tool_use, length→max_tokens). */
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  /** The `model` reported back; default the requested model. */
  model?: string;
  /** Answers with this HTTP error status and the protocol's error envelope (or `errorBody`). */
  status?: number;
  errorMessage?: string;
  errorBody?: unknown;
  /** Extra response headers (e.g. `retry-after`). */
  headers?: Record<string, string>;
  /** Waits this long before the first response byte; cut short when the client disconnects. */
  delayMs?: number;
  /** Holds the answer until this settles (the test releases it); cut short when the client disconnects. */
  heldUntil?: Promise<unknown>;
  /** Waits this long between streamed chunks. */
  chunkDelayMs?: number;
  /**
   * Streams the headers and this many content deltas, then destroys the socket. Set chunkDelayMs too when the
   * client must see the deltas: a fetch stream that errors discards the chunks it had not handed out yet.
   */
  dropAfterChunks?: number;
  /** Destroys the socket without sending anything. */
  dropConnection?: boolean;
  /** Embedding vectors to return instead of the deterministic ones. */
  vectors?: number[][];
  /**
   * A streamed reply (OpenAI wire) of `chars` characters of text, or of one tool call's arguments, generated as it
   * is written in deltas of `deltaChars` (default 1000) and paced by the socket: a server ignoring max_tokens,
   * without the test holding the reply in memory. It ends with finish_reason `stop`, or stops when the client leaves.
   */
  huge?: { chars: number; deltaChars?: number; as?: 'text' | 'tool-arguments' };
  /** Streams each tool call's arguments in this many pieces (OpenAI and Anthropic); default 2. */
  argumentChunks?: number;
  /** Sends no usage at all, even when asked (some OpenAI-compatible servers). */
  omitUsage?: boolean;
  /** The finish reason exactly as written on the wire, overriding `finishReason` (e.g. `pause_turn`, `RECITATION`). */
  wireFinishReason?: string;
  /** After this many content deltas, streams the protocol's error frame for `status` and ends the answer. */
  streamError?: { afterChunks: number; status: number; message?: string };
  /** Answers a streaming request with the whole JSON body, as servers that ignore `stream: true` do. */
  ignoreStream?: boolean;
}

export type ScriptEntry = ScriptedReply | ((request: RecordedRequest) => ScriptedReply);

export interface ResolvedTurn {
  model: string;
  deltas: string[];
  toolCalls: Required<ScriptedToolCall>[];
  usage: Required<ScriptedUsage>;
  finishReason: NonNullable<ScriptedReply['finishReason']>;
}

const estimate = (text: string): number => Math.ceil(text.length / 4);

export function splitText(text: string, chunks: number | undefined): string[] {
  if (text.length === 0) return [];
  if (chunks === undefined) return text.match(/\S+\s*|\s+/g) ?? [text];
  const count = Math.max(1, Math.min(chunks, text.length));
  const size = Math.ceil(text.length / count);
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts;
}

/** Turns a reply into what the protocol writers send; `promptText` feeds the usage estimate. */
export function resolveTurn(
  reply: ScriptedReply,
  requestedModel: string,
  promptText: string,
  idPrefix: string,
): ResolvedTurn {
  const deltas = reply.deltas ?? splitText(reply.text ?? '', reply.chunks);
  const text = deltas.join('');
  const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `${idPrefix}${index + 1}`,
    name: call.name,
    arguments: call.arguments,
  }));
  const argumentText = toolCalls.map((call) => argumentsJson(call)).join('');
  return {
    model: reply.model ?? requestedModel,
    deltas,
    toolCalls,
    usage: {
      inputTokens: reply.usage?.inputTokens ?? estimate(promptText),
      outputTokens: reply.usage?.outputTokens ?? Math.max(1, estimate(text + argumentText)),
      cacheReadTokens: reply.usage?.cacheReadTokens ?? 0,
      cacheWriteTokens: reply.usage?.cacheWriteTokens ?? 0,
    },
    finishReason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
  };
}

export function argumentsJson(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

/** A tool call's arguments in `pieces` parts of about equal length (at least one, never empty pieces). */
export function argumentPieces(call: ScriptedToolCall, pieces = 2): string[] {
  const json = argumentsJson(call);
  const size = Math.max(1, Math.ceil(json.length / Math.max(1, pieces)));
  const parts: string[] = [];
  for (let start = 0; start < json.length; start += size) parts.push(json.slice(start, start + size));
  return parts;
}

/** The frames up to `afterChunks` content deltas, then the error frame in place of the rest. */
export function cutWithError(
  frames: readonly { frame: string; isContent: boolean }[],
  afterChunks: number,
  errorFrame: string,
): { frame: string; isContent: boolean }[] {
  const kept: { frame: string; isContent: boolean }[] = [];
  let content = 0;
  for (const entry of frames) {
    if (entry.isContent && content >= afterChunks) break;
    kept.push(entry);
    if (entry.isContent) content += 1;
  }
  kept.push({ frame: errorFrame, isContent: false });
  return kept;
}

/** The text of the last user message of an OpenAI or Anthropic `messages` array, or a Gemini `contents` array. */
export function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message: unknown = messages[index];
    if (!isRecord(message) || message.role !== 'user') continue;
    // Gemini contents carry `parts` of `{text}`; OpenAI and Anthropic carry `content`.
    const text = Array.isArray(message.parts) ? partsText(message.parts) : contentText(message.content);
    if (text.length > 0) return text;
  }
  return '';
}

function partsText(parts: unknown[]): string {
  return parts.map((part: unknown) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => (isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

/** The reply used when the script queue is empty: echoes the last user message. */
export function echoReply(request: RecordedRequest): ScriptedReply {
  const body = isRecord(request.body) ? request.body : {};
  return { text: `Echo: ${lastUserText(body.messages ?? body.contents)}` };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves after `ms`, or at once when the response closes (client gone); tells which happened. */
export function pause(ms: number, res: ServerResponse): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(!res.destroyed);
  return new Promise((resolve) => {
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(!res.destroyed);
    }, ms);
    res.once('close', onClose);
  });
}

/** Resolves true once `held` settles, or false as soon as the client disconnects. */
export function holdUntil(held: Promise<unknown>, res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = (): void => resolve(false);
    res.once('close', onClose);
    const release = (): void => {
      res.off('close', onClose);
      resolve(!res.destroyed);
    };
    held.then(release, release);
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function startEventStream(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
  res.flushHeaders();
}

/** Writes a sequence of SSE frames, honouring chunkDelayMs and dropAfterChunks; false when the stream was cut. */
export async function writeFrames(
  res: ServerResponse,
  frames: readonly { frame: string; isContent: boolean }[],
  reply: ScriptedReply,
): Promise<boolean> {
  if (reply.chunkDelayMs === undefined && reply.dropAfterChunks === undefined) {
    // Nothing to pace or cut: one write keeps benchmarks measuring the gateway, not our syscalls.
    if (res.destroyed) return false;
    res.write(frames.map(({ frame }) => frame).join(''));
    return true;
  }
  let contentWritten = 0;
  for (const { frame, isContent } of frames) {
    // The preamble (role chunk, message_start) always goes out; the cut comes after N content deltas.
    const isPastPreamble = isContent || contentWritten > 0;
    if (reply.dropAfterChunks !== undefined && isPastPreamble && contentWritten >= reply.dropAfterChunks) {
      // Waiting one chunk delay first lets the client read what was sent: a stream that errors drops its queue.
      if (reply.chunkDelayMs !== undefined) await pause(reply.chunkDelayMs, res);
      res.socket?.destroy();
      return false;
    }
    if (isContent && contentWritten > 0 && reply.chunkDelayMs !== undefined) {
      if (!(await pause(reply.chunkDelayMs, res))) return false;
    }
    if (res.destroyed) return false;
    res.write(frame);
    if (isContent) contentWritten += 1;
  }
  if (reply.dropAfterChunks !== undefined) {
    res.socket?.destroy();
    return false;
  }
  return true;
}

/** Writes frames as the iterator makes them, waiting for `drain` when the socket is full; false when the client left. */
export async function writeLazily(
  res: ServerResponse,
  frames: Iterable<string>,
  request?: RecordedRequest,
): Promise<boolean> {
  for (const frame of frames) {
    if (res.destroyed) return false;
    if (!res.write(frame)) {
      if (request !== undefined) request.isWaitingForDrain = true;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      });
      if (request !== undefined) request.isWaitingForDrain = false;
    }
  }
  return !res.destroyed;
}
