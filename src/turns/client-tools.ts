// Tools the caller runs itself (OpenAI `tools`): offered beside the agent's own, handed back when the model calls one.
import { GatewayError } from '../errors.js';
import type { CallSettings, ToolSpec, TranscriptMessage, TranscriptToolCall } from '../providers/index.js';

/** A result the caller sends back for one of the calls an earlier turn handed over. */
export interface ToolOutput {
  toolCallId: string;
  content: string;
}

/** A client tool may not shadow one of the agent's: the model could not tell which one it called. */
export function assertNoToolClash(agentTools: readonly ToolSpec[], clientTools: readonly ToolSpec[]): void {
  const names = new Set(agentTools.map((tool) => tool.name));
  const clash = clientTools.find((tool) => names.has(tool.name));
  if (clash !== undefined) {
    throw new GatewayError(
      'invalid_params',
      `Tool '${clash.name}' is already one of the agent's tools; give the client tool another name`,
      { param: 'tools' },
    );
  }
}

/** The calls of one step meant for the caller; empty when the turn runs on. */
export function callsForClient(
  calls: readonly TranscriptToolCall[],
  clientTools: readonly ToolSpec[] | undefined,
): TranscriptToolCall[] {
  if (clientTools === undefined || clientTools.length === 0) return [];
  return calls.filter((call) => clientTools.some((tool) => tool.name === call.name));
}

/**
 * The tool messages that answer the calls still open at the end of `history` (the last assistant message's calls
 * without a result): the caller's outputs, and an error result for each call it sent nothing for, since every call
 * needs a result before the model can be asked again. An output for a call that is not open is refused.
 */
export function resultsForOpenCalls(
  history: readonly TranscriptMessage[],
  outputs: readonly ToolOutput[],
  now: number,
): TranscriptMessage[] {
  const open = openCalls(history);
  for (const output of outputs) {
    if (!open.some((call) => call.id === output.toolCallId)) {
      throw new GatewayError('invalid_params', `No tool call '${output.toolCallId}' is waiting for a result`, {
        param: 'tool_call_id',
      });
    }
  }
  return open.map((call): TranscriptMessage => {
    const output = outputs.find((candidate) => candidate.toolCallId === call.id);
    return output === undefined
      ? {
          role: 'tool',
          toolCallId: call.id,
          toolName: call.name,
          content: 'Error: the client sent no result for this call',
          isError: true,
          timestamp: now,
        }
      : {
          role: 'tool',
          toolCallId: call.id,
          toolName: call.name,
          content: output.content,
          isError: false,
          timestamp: now,
        };
  });
}

function openCalls(history: readonly TranscriptMessage[]): TranscriptToolCall[] {
  const answered = new Set<string>();
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const message = history[index];
    if (message === undefined) continue;
    if (message.role === 'tool') answered.add(message.toolCallId);
    else if (message.role === 'assistant') return (message.toolCalls ?? []).filter((call) => !answered.has(call.id));
    else return [];
  }
  return [];
}

/**
 * The settings of the steps after the first: a forcing tool choice (`required` or a named tool) applies to the
 * first model call only, or every step would call a tool again and the turn could never answer.
 */
export function laterStepSettings(settings: CallSettings | undefined): CallSettings | undefined {
  if (settings?.toolChoice === undefined || settings.toolChoice === 'auto' || settings.toolChoice === 'none')
    return settings;
  const { toolChoice, ...rest } = settings;
  return rest;
}
