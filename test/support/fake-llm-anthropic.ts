// The fake LLM server's Anthropic Messages wire: JSON replies and the real SSE event sequence with tool_use blocks.
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
  type RecordedRequest,
  type ResolvedTurn,
  type ScriptedReply,
} from './fake-llm-script.js';

let messageCounter = 0;

const STOP_REASON = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
} as const;

/** Anthropic's error envelope for a status: `{type: 'error', error: {type, message}}`. */
function errorEnvelope(status: number, message: string | undefined): Record<string, unknown> {
  const type =
    status === 401
      ? 'authentication_error'
      : status === 403
        ? 'permission_error'
        : status === 429
          ? 'rate_limit_error'
          : status === 529
            ? 'overloaded_error'
            : status >= 500
              ? 'api_error'
              : 'invalid_request_error';
  return { type: 'error', error: { type, message: message ?? `scripted failure ${status}` } };
}

export function anthropicError(res: ServerResponse, reply: ScriptedReply): void {
  const status = reply.status ?? 500;
  sendJson(res, status, reply.errorBody ?? errorEnvelope(status, reply.errorMessage), reply.headers);
}

function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

function usageObject(turn: ResolvedTurn, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: Math.max(0, turn.usage.inputTokens - turn.usage.cacheReadTokens - turn.usage.cacheWriteTokens),
    output_tokens: outputTokens,
    cache_read_input_tokens: turn.usage.cacheReadTokens,
    cache_creation_input_tokens: turn.usage.cacheWriteTokens,
  };
}

export async function answerMessages(
  request: RecordedRequest,
  res: ServerResponse,
  reply: ScriptedReply,
): Promise<void> {
  const body = isRecord(request.body) ? request.body : {};
  const requestedModel = typeof body.model === 'string' ? body.model : 'fake-model';
  const turn = resolveTurn(
    reply,
    requestedModel,
    JSON.stringify([body.system ?? '', body.messages ?? '']),
    'toolu_fake_',
  );
  messageCounter += 1;
  const id = `msg_fake_${messageCounter}`;
  const stopReason = reply.wireFinishReason ?? STOP_REASON[turn.finishReason];
  const text = turn.deltas.join('');

  if (!request.isStream || reply.ignoreStream === true) {
    if (reply.dropAfterChunks !== undefined) {
      res.socket?.destroy();
      return;
    }
    const content: unknown[] = text.length > 0 ? [{ type: 'text', text }] : [];
    for (const call of turn.toolCalls)
      content.push({ type: 'tool_use', id: call.id, name: call.name, input: parseInput(argumentsJson(call)) });
    sendJson(
      res,
      200,
      {
        id,
        type: 'message',
        role: 'assistant',
        model: turn.model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: usageObject(turn, turn.usage.outputTokens),
      },
      reply.headers,
    );
    return;
  }

  const event = (name: string, data: Record<string, unknown>): string =>
    `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
  const frames: { frame: string; isContent: boolean }[] = [
    {
      frame: event('message_start', {
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: turn.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: usageObject(turn, 1),
        },
      }),
      isContent: false,
    },
  ];
  let blockIndex = 0;
  if (turn.deltas.length > 0) {
    frames.push({
      frame: event('content_block_start', { index: blockIndex, content_block: { type: 'text', text: '' } }),
      isContent: false,
    });
    for (const piece of turn.deltas) {
      frames.push({
        frame: event('content_block_delta', { index: blockIndex, delta: { type: 'text_delta', text: piece } }),
        isContent: true,
      });
    }
    frames.push({ frame: event('content_block_stop', { index: blockIndex }), isContent: false });
    blockIndex += 1;
  }
  for (const call of turn.toolCalls) {
    frames.push({
      frame: event('content_block_start', {
        index: blockIndex,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      }),
      isContent: false,
    });
    for (const piece of argumentPieces(call, reply.argumentChunks)) {
      frames.push({
        frame: event('content_block_delta', {
          index: blockIndex,
          delta: { type: 'input_json_delta', partial_json: piece },
        }),
        isContent: true,
      });
    }
    frames.push({ frame: event('content_block_stop', { index: blockIndex }), isContent: false });
    blockIndex += 1;
  }
  frames.push({
    frame: event('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: turn.usage.outputTokens },
    }),
    isContent: false,
  });
  frames.push({ frame: event('message_stop', {}), isContent: false });

  const { streamError } = reply;
  const sent =
    streamError === undefined
      ? frames
      : cutWithError(
          frames,
          streamError.afterChunks,
          `event: error\ndata: ${JSON.stringify(errorEnvelope(streamError.status, streamError.message))}\n\n`,
        );
  startEventStream(res, reply.headers);
  if (await writeFrames(res, sent, reply)) res.end();
}
