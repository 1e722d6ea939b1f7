// The fake LLM server's OpenAI wire: chat completions (JSON and SSE with tool_calls deltas and usage), embeddings, models.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import {
  argumentPieces,
  argumentsJson,
  cutWithError,
  isRecord,
  resolveTurn,
  sendJson,
  startEventStream,
  writeFrames,
  writeLazily,
  type RecordedRequest,
  type ResolvedTurn,
  type ScriptedReply,
} from './fake-llm-script.js';

let completionCounter = 0;

/** OpenAI's error object for a status, with the type and code OpenAI sends for it. */
function errorObject(status: number, message: string | undefined): Record<string, unknown> {
  const [type, code] =
    status === 401
      ? ['invalid_request_error', 'invalid_api_key']
      : status === 429
        ? ['requests', 'rate_limit_exceeded']
        : status >= 500
          ? ['server_error', null]
          : ['invalid_request_error', null];
  return { message: message ?? `scripted failure ${status}`, type, param: null, code };
}

export function openAiError(res: ServerResponse, reply: ScriptedReply): void {
  const status = reply.status ?? 500;
  sendJson(res, status, reply.errorBody ?? { error: errorObject(status, reply.errorMessage) }, reply.headers);
}

function usageObject(turn: ResolvedTurn): Record<string, unknown> {
  return {
    prompt_tokens: turn.usage.inputTokens,
    completion_tokens: turn.usage.outputTokens,
    total_tokens: turn.usage.inputTokens + turn.usage.outputTokens,
    prompt_tokens_details: { cached_tokens: turn.usage.cacheReadTokens },
  };
}

export async function answerChatCompletion(
  request: RecordedRequest,
  res: ServerResponse,
  reply: ScriptedReply,
): Promise<void> {
  const body = isRecord(request.body) ? request.body : {};
  const requestedModel = typeof body.model === 'string' ? body.model : 'fake-model';
  const turn = resolveTurn(reply, requestedModel, JSON.stringify(body.messages ?? ''), 'call_');
  completionCounter += 1;
  const id = `chatcmpl-fake-${completionCounter}`;
  const created = Math.floor(Date.now() / 1000);

  const finishReason = reply.wireFinishReason ?? turn.finishReason;
  if (!request.isStream || reply.ignoreStream === true) {
    if (reply.dropAfterChunks !== undefined) {
      res.socket?.destroy();
      return;
    }
    const text = turn.deltas.join('');
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: text.length > 0 || turn.toolCalls.length === 0 ? text : null,
    };
    if (turn.toolCalls.length > 0) {
      message.tool_calls = turn.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: argumentsJson(call) },
      }));
    }
    sendJson(
      res,
      200,
      {
        id,
        object: 'chat.completion',
        created,
        model: turn.model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
        ...(reply.omitUsage === true ? {} : { usage: usageObject(turn) }),
      },
      reply.headers,
    );
    return;
  }

  const streamOptions = isRecord(body.stream_options) ? body.stream_options : {};
  const isUsageWanted = streamOptions.include_usage === true && reply.omitUsage !== true;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): string =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: turn.model, choices, ...extra })}\n\n`;
  const delta = (value: Record<string, unknown>, finishReason: string | null = null) => [
    { index: 0, delta: value, logprobs: null, finish_reason: finishReason },
  ];

  if (reply.huge !== undefined) {
    startEventStream(res, reply.headers);
    if (await writeLazily(res, hugeFrames(request, reply.huge, chunk, delta), request)) res.end();
    return;
  }

  const frames: { frame: string; isContent: boolean }[] = [
    { frame: chunk(delta({ role: 'assistant', content: '' })), isContent: false },
  ];
  for (const text of turn.deltas) frames.push({ frame: chunk(delta({ content: text })), isContent: true });
  turn.toolCalls.forEach((call, index) => {
    frames.push({
      frame: chunk(
        delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }),
      ),
      isContent: true,
    });
    // Arguments arrive in pieces (two unless scripted), as real servers split them, so clients must join deltas.
    for (const piece of argumentPieces(call, reply.argumentChunks)) {
      frames.push({
        frame: chunk(delta({ tool_calls: [{ index, function: { arguments: piece } }] })),
        isContent: true,
      });
    }
  });
  frames.push({ frame: chunk(delta({}, finishReason)), isContent: false });
  if (isUsageWanted) frames.push({ frame: chunk([], { usage: usageObject(turn) }), isContent: false });
  frames.push({ frame: 'data: [DONE]\n\n', isContent: false });

  const { streamError } = reply;
  const sent =
    streamError === undefined
      ? frames
      : cutWithError(
          frames,
          streamError.afterChunks,
          `data: ${JSON.stringify({ error: errorObject(streamError.status, streamError.message) })}\n\n`,
        );
  startEventStream(res, reply.headers);
  if (await writeFrames(res, sent, reply)) res.end();
}

type ChunkWriter = (choices: unknown[], extra?: Record<string, unknown>) => string;
type DeltaWriter = (value: Record<string, unknown>, finishReason?: string | null) => unknown[];

/** The frames of a `huge` reply, made one at a time; counts what it wrote on the recorded request. */
function* hugeFrames(
  request: RecordedRequest,
  huge: NonNullable<ScriptedReply['huge']>,
  chunk: ChunkWriter,
  delta: DeltaWriter,
): Generator<string> {
  const size = huge.deltaChars ?? 1000;
  const piece = 'lorem ipsum '.repeat(Math.ceil(size / 12)).slice(0, size);
  const isTool = huge.as === 'tool-arguments';
  yield chunk(delta({ role: 'assistant', content: '' }));
  if (isTool)
    yield chunk(
      delta({
        tool_calls: [
          { index: 0, id: 'call_huge', type: 'function', function: { name: 'current_time', arguments: '{"note":"' } },
        ],
      }),
    );
  while (request.streamedChars < huge.chars) {
    const text = piece.slice(0, huge.chars - request.streamedChars);
    request.streamedChars += text.length;
    yield chunk(delta(isTool ? { tool_calls: [{ index: 0, function: { arguments: text } }] } : { content: text }));
  }
  if (isTool) yield chunk(delta({ tool_calls: [{ index: 0, function: { arguments: '"}' } }] }));
  yield chunk(delta({}, isTool ? 'tool_calls' : 'stop'));
  yield 'data: [DONE]\n\n';
}

/** A deterministic unit vector per text: the same text always gives the same vector. */
export function fakeVector(text: string, dimensions: number): number[] {
  const values: number[] = [];
  let block = Buffer.alloc(0);
  for (let index = 0; values.length < dimensions; index += 1) {
    if (block.length === 0) block = createHash('sha256').update(`${index}:${text}`).digest();
    values.push(block.readUInt8(0) / 127.5 - 1);
    block = block.subarray(1);
  }
  const norm = Math.hypot(...values) || 1;
  return values.map((value) => value / norm);
}

function toBase64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

export function answerEmbeddings(
  request: RecordedRequest,
  res: ServerResponse,
  reply: ScriptedReply,
  dimensions: number,
): void {
  const body = isRecord(request.body) ? request.body : {};
  const inputs = Array.isArray(body.input) ? body.input.map(String) : [String(body.input ?? '')];
  // OpenAI's `dimensions` asks for shorter vectors.
  const size = typeof body.dimensions === 'number' ? body.dimensions : dimensions;
  const vectors = reply.vectors ?? inputs.map((text) => fakeVector(text, size));
  const isBase64 = body.encoding_format === 'base64';
  const tokens = inputs.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
  sendJson(
    res,
    200,
    {
      object: 'list',
      data: vectors.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: isBase64 ? toBase64(vector) : vector,
      })),
      model: reply.model ?? (typeof body.model === 'string' ? body.model : 'fake-embedding'),
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
    reply.headers,
  );
}

/** `fields` adds extra fields to a listed model, such as the served context window (`max_model_len` on vLLM). */
export function answerModels(
  res: ServerResponse,
  models: readonly string[],
  fields: Readonly<Record<string, Record<string, unknown>>> = {},
): void {
  sendJson(res, 200, {
    object: 'list',
    data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake-llm', ...fields[id] })),
  });
}
