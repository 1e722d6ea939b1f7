// What a tool is: a name, a description, a strict zod input schema and an execute function.
import type { z } from 'zod';
import type { SessionCaller } from '../types.js';

export interface ToolContext {
  agentId: string;
  sessionKey: string;
  /** Who started the turn; a sub-agent the tool spawns is theirs. */
  caller: SessionCaller;
  /** The token id owning the session: the tool acts on this token's resources (memories, browser context). */
  ownerId: string;
  signal: AbortSignal;
  /**
   * The turn the call runs in, for a tool that runs the agent's other tools under the turn's hooks (orchestrate):
   * its trace, its key's parts and its run tree. Absent outside a turn.
   */
  turn?: {
    traceId: string;
    keyParts: { tenantId: string; userId: string; channelId: string; peerId?: string };
    rootRunId?: string;
    /** The turn's tool limits (the agent's budget) for calls the tool makes. */
    toolLimits: Partial<{ timeoutMs: number; maxResultChars: number }>;
  };
}

export interface ToolDefinition<Input extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  input: Input;
  /**
   * The JSON Schema the model is given instead of one derived from `input`: a tool whose own server validates its
   * input (an MCP server's tool) carries the server's schema here and a cheap object check as `input`.
   */
  inputSchema?: Record<string, unknown>;
  /** Set on a stand-in for a tool that cannot be reached (why): it is offered so the model sees it fail, never run silently without it. */
  unavailable?: string;
  /** Returns a JSON-serialisable result; throws for a failure the model should see as an error. */
  execute: (input: z.infer<Input>, ctx: ToolContext) => Promise<unknown>;
}

export function defineTool<Input extends z.ZodType>(definition: ToolDefinition<Input>): ToolDefinition<Input> {
  return definition;
}

/** The error kinds recorded for failed tool calls (counts-only trajectory); `denied`: a beforeTool hook refused it. */
export type ToolErrorKind =
  | 'unknown_tool'
  | 'invalid_input'
  | 'timeout'
  | 'aborted'
  | 'failed'
  | 'denied'
  | 'mcp_unavailable'
  | 'a2a_unavailable';

/** Tool error kinds a GatewayError may name in `details.toolErrorKind` for the registry to record instead of `failed`. */
export const THROWN_TOOL_ERROR_KINDS: readonly ToolErrorKind[] = ['timeout', 'mcp_unavailable', 'a2a_unavailable'];
