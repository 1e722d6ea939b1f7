// The session_spawn tool: an agent starts a sub-agent on a task in its own session and gets the run id back.
import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../agents/index.js';
import type { SubAgentRuns } from './sub-agent-runs.js';

export function spawnTool(runs: Pick<SubAgentRuns, 'spawn'>): ToolDefinition {
  return defineTool({
    name: 'session_spawn',
    description: 'Starts a sub-agent on a task in its own session and returns its run id; the result arrives later.',
    input: z.strictObject({ task: z.string().min(1).max(20_000), agentId: z.string().min(1).optional() }),
    execute: async ({ task, agentId }, ctx) =>
      runs.spawn({
        parentKey: ctx.sessionKey,
        task,
        ...(agentId === undefined ? {} : { agentId }),
        caller: ctx.caller,
      }),
  });
}
