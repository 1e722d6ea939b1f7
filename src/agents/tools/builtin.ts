// The built-in tools every gateway has (current_time); capability modules add theirs (runs adds session_spawn).
import { z } from 'zod';
import { defineTool, type ToolDefinition } from './types.js';

export interface BuiltinToolDeps {
  now: () => number;
}

export function builtinTools({ now }: BuiltinToolDeps): ToolDefinition[] {
  return [
    defineTool({
      name: 'current_time',
      description: 'The current date and time (ISO 8601, UTC) and epoch milliseconds.',
      input: z.strictObject({}),
      execute: async () => ({ iso: new Date(now()).toISOString(), epochMs: now() }),
    }),
  ];
}
