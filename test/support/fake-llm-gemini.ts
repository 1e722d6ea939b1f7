// The fake LLM server's Gemini wire: generateContent, streamGenerateContent (SSE or a JSON array), embedContent, batchEmbedContents.
import type { ServerResponse } from 'node:http';
import { fakeVector } from './fake-llm-openai.js';
import {
  argumentsJson,
  cutWithError,
  isRecord,
  resolveTurn,
  sendJson,
  startEventStream,
  writeFrames,
  type RecordedRequest,
  type ResolvedTurn,
  type ScriptedReply,
} from './fake-llm-script.js';

const FINISH_REASON = { stop: 'STOP', tool_calls: 'STOP', length: 'MAX_TOKENS', content_filter: 'SAFETY' } as const;

/** google.rpc status names Gemini puts in `error.status` for each HTTP status. */
function statusName(status: number): string {
  if (status === 400) return 'INVALID_ARGUMENT';
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'PERMISSION_DENIED';
  if (status === 404) return 'NOT_FOUND';
  if (status === 429) return 'RESOURCE_EXHAUSTED';
  if (status === 503) return 'UNAVAILABLE';
  if (status === 504) return 'DEADLINE_EXCEEDED';
  return status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION';
}

function errorEnvelope(status: number, message: string | undefined): Record<string, unknown> {
  return { error: { code: status, message: message ?? `scripted failure ${status}`, status: statusName(status) } };
}

export function geminiError(res: ServerResponse, reply: ScriptedReply): void {
  const status = reply.status ?? 500;
  sendJson(res, status, reply.errorBody ?? errorEnvelope(status, reply.errorMessage), reply.headers);
}

/** `/v1beta/models/<model>:<method>` → the model and the method; only under /v1beta, Gemini's API version. */
export function geminiRoute(path: string): { model: string; method: string } | undefined {
  const match = /^\/v1beta\/models\/([^/:]+):([A-Za-z]+)$/.exec(path);
  return match?.[1] === undefined || match[2] === undefined
    ? undefined
    : { model: decodeURIComponent(match[1]), method: match[2] };
}

function parseArgs(call: ResolvedTurn['toolCalls'][number]): unknown {
  try {
    return JSON.parse(argumentsJson(call));
  } catch {
    return {};
  }
}

function usageMetadata(turn: ResolvedTurn): Record<string, unknown> {
  return {
    promptTokenCount: turn.usage.inputTokens,
    candidatesTokenCount: turn.usage.outputTokens,
    totalTokenCount: turn.usage.inputTokens + turn.usage.outputTokens,
    ...(turn.usage.cacheReadTokens > 0 ? { cachedContentTokenCount: turn.usage.cacheReadTokens } : {}),
  };
}

export async function answerGemini(
  request: RecordedRequest,
  res: ServerResponse,
  reply: ScriptedReply,
  model: string,
): Promise<void> {
  const body = isRecord(request.body) ? request.body : {};
  const turn = resolveTurn(
    reply,
    model,
    JSON.stringify([body.systemInstruction ?? '', body.contents ?? '']),
    'gemini_call_',
  );
  const finishReason = reply.wireFinishReason ?? FINISH_REASON[turn.finishReason];
  const candidate = (parts: unknown[], isLast: boolean): Record<string, unknown> => ({
    content: { role: 'model', parts },
    index: 0,
    ...(isLast ? { finishReason } : {}),
  });
  // Text deltas, then all function calls together in one chunk (Gemini sends each call whole); usage only on the last chunk.
  const calls = turn.toolCalls.map((call) => ({ functionCall: { name: call.name, args: parseArgs(call) } }));
  const groups: unknown[][] = turn.deltas.map((text) => [{ text }]);
  if (calls.length > 0) groups.push(calls);
  if (groups.length === 0) groups.push([]);
  const chunks = groups.map((parts, index) => {
    const isLast = index === groups.length - 1;
    const usage = isLast && reply.omitUsage !== true ? { usageMetadata: usageMetadata(turn) } : {};
    return { candidates: [candidate(parts, isLast)], ...usage, modelVersion: turn.model };
  });

  const isSse =
    request.isStream && new URLSearchParams(request.query).get('alt') === 'sse' && reply.ignoreStream !== true;
  if (!isSse) {
    if (reply.dropAfterChunks !== undefined) {
      res.socket?.destroy();
      return;
    }
    if (request.isStream) {
      // streamGenerateContent without alt=sse answers one JSON array of the chunks.
      sendJson(res, 200, chunks, reply.headers);
      return;
    }
    const parts = [...(turn.deltas.length > 0 ? [{ text: turn.deltas.join('') }] : []), ...calls];
    sendJson(
      res,
      200,
      { candidates: [candidate(parts, true)], usageMetadata: usageMetadata(turn), modelVersion: turn.model },
      reply.headers,
    );
    return;
  }
  const frames = chunks.map((chunk, index) => ({
    frame: `data: ${JSON.stringify(chunk)}\r\n\r\n`,
    isContent: (groups[index]?.length ?? 0) > 0,
  }));
  const { streamError } = reply;
  const sent =
    streamError === undefined
      ? frames
      : cutWithError(
          frames,
          streamError.afterChunks,
          `data: ${JSON.stringify(errorEnvelope(streamError.status, streamError.message))}\r\n\r\n`,
        );
  startEventStream(res, reply.headers);
  if (await writeFrames(res, sent, reply)) res.end();
}

export function answerGeminiEmbeddings(
  request: RecordedRequest,
  res: ServerResponse,
  reply: ScriptedReply,
  method: string,
  dimensions: number,
): void {
  const body = isRecord(request.body) ? request.body : {};
  const textOf = (content: unknown): string =>
    isRecord(content) && Array.isArray(content.parts)
      ? content.parts
          .map((part: unknown) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
          .join('')
      : '';
  // Gemini's `outputDimensionality` asks for shorter vectors, per content.
  const sizeOf = (request: unknown): number =>
    isRecord(request) && typeof request.outputDimensionality === 'number' ? request.outputDimensionality : dimensions;
  if (method === 'embedContent') {
    const vector = reply.vectors?.[0] ?? fakeVector(textOf(body.content), sizeOf(body));
    sendJson(res, 200, { embedding: { values: vector } }, reply.headers);
    return;
  }
  const requests = Array.isArray(body.requests) ? body.requests : [];
  const vectors =
    reply.vectors ??
    requests.map((item: unknown) => fakeVector(textOf(isRecord(item) ? item.content : undefined), sizeOf(item)));
  sendJson(res, 200, { embeddings: vectors.map((values) => ({ values })) }, reply.headers);
}
