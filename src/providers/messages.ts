// Converts our transcript and tool specs into the AI SDK's prompt: ModelMessage[] and a ToolSet without execute.
import { jsonSchema, tool, type JSONSchema7, type ModelMessage, type ToolSet } from 'ai';
import type { TranscriptMessage } from './transcript.js';
import type { ToolSpec } from './types.js';

type ToolResultPart = Extract<ModelMessage, { role: 'tool' }>['content'][number];
type AssistantPart = Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string>[number];

export interface ModelPrompt {
  system: string | undefined;
  messages: ModelMessage[];
}

/**
 * System messages inside the transcript join the system prompt (Anthropic and Gemini accept system text only
 * up front). Consecutive tool results become one tool message; an assistant message with neither text nor
 * tool calls is dropped, since Anthropic refuses empty text blocks.
 */
export function toModelPrompt(system: string, transcript: readonly TranscriptMessage[]): ModelPrompt {
  const systemParts = system.length > 0 ? [system] : [];
  const messages: ModelMessage[] = [];
  let pendingResults: ToolResultPart[] | undefined;

  for (const message of transcript) {
    if (message.role !== 'tool') pendingResults = undefined;
    switch (message.role) {
      case 'system':
        if (message.content.length > 0) systemParts.push(message.content);
        break;
      case 'user':
        messages.push({ role: 'user', content: message.content });
        break;
      case 'assistant': {
        const parts: AssistantPart[] = [];
        if (message.content.length > 0) parts.push({ type: 'text', text: message.content });
        for (const call of message.toolCalls ?? []) {
          parts.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input });
        }
        if (parts.length > 0) messages.push({ role: 'assistant', content: parts });
        break;
      }
      case 'tool': {
        const part: ToolResultPart = {
          type: 'tool-result',
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          output: message.isError ? { type: 'error-text', value: message.content } : { type: 'text', value: message.content },
        };
        if (pendingResults === undefined) {
          pendingResults = [part];
          messages.push({ role: 'tool', content: pendingResults });
        } else {
          pendingResults.push(part);
        }
        break;
      }
    }
  }
  return { system: systemParts.length > 0 ? systemParts.join('\n\n') : undefined, messages };
}

/** Our tool registry hands out JSON Schema objects; the SDK types them as JSONSchema7. */
function asJsonSchema7(schema: Record<string, unknown>): JSONSchema7 {
  return schema as JSONSchema7;
}

/** Tools declared without execute: the SDK only streams the calls, and the turn loop runs them. */
export function toToolSet(specs: readonly ToolSpec[]): ToolSet | undefined {
  if (specs.length === 0) return undefined;
  const tools: ToolSet = {};
  for (const spec of specs) {
    tools[spec.name] = tool({ description: spec.description, inputSchema: jsonSchema(asJsonSchema7(spec.inputSchema)) });
  }
  return tools;
}
