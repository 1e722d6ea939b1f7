// The built-in tools agents can name in their config: current_time, session_spawn, memory_search, memory_store.
import { z } from 'zod';
import { GatewayError } from '../../errors.js';
import type { SessionCaller } from '../../sessions/session-access.js';
import { defineTool, type ToolDefinition } from './types.js';

/** What the memory tools need; wired when a memory store exists. */
export interface ToolMemory {
  search(query: string, limit: number, scope: { agentId: string; sessionKey: string }): Promise<{ id: string; content: string; score: number | null }[]>;
  store(content: string, scope: { agentId: string; sessionKey: string }): Promise<{ id: string }>;
}

/** What session_spawn needs: starts a sub-agent run and returns at once. */
export type SpawnSubAgent = (request: { parentKey: string; task: string; agentId?: string; caller: SessionCaller }) => Promise<{ runId: string; sessionKey: string; status: string }>;

export interface BuiltinToolDeps {
  now: () => number;
  memory?: ToolMemory;
  /** Read on call: the session service that implements it is built after the turn runner. */
  spawnSubAgent?: () => SpawnSubAgent | undefined;
}

export function builtinTools({ now, memory, spawnSubAgent }: BuiltinToolDeps): ToolDefinition[] {
  const tools: ToolDefinition[] = [
    defineTool({
      name: 'current_time',
      description: 'The current date and time (ISO 8601, UTC) and epoch milliseconds.',
      input: z.strictObject({}),
      execute: async () => ({ iso: new Date(now()).toISOString(), epochMs: now() }),
    }),
    defineTool({
      name: 'session_spawn',
      description: 'Starts a sub-agent on a task in its own session and returns its run id; the result arrives later.',
      input: z.strictObject({ task: z.string().min(1).max(20_000), agentId: z.string().min(1).optional() }),
      execute: async ({ task, agentId }, ctx) => {
        const spawn = spawnSubAgent?.();
        if (spawn === undefined) throw new GatewayError('unavailable', 'sub-agents are not available in this gateway');
        return spawn({ parentKey: ctx.sessionKey, task, ...(agentId === undefined ? {} : { agentId }), caller: ctx.caller });
      },
    }),
  ];
  if (memory !== undefined) {
    tools.push(
      defineTool({
        name: 'memory_search',
        description: 'Searches long-term memory for entries relevant to a query.',
        input: z.strictObject({ query: z.string().min(1).max(2000), limit: z.number().int().min(1).max(50).optional() }),
        execute: async ({ query, limit }, ctx) => ({ results: await memory.search(query, limit ?? 5, ctx) }),
      }),
      defineTool({
        name: 'memory_store',
        description: 'Stores a fact in long-term memory for later recall.',
        input: z.strictObject({ content: z.string().min(1).max(20_000) }),
        execute: async ({ content }, ctx) => memory.store(content, ctx),
      }),
    );
  }
  return tools;
}
