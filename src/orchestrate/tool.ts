// The orchestrate agent tool: the model writes a script that calls the agent's other tools in one go.
import { z } from 'zod';
import { defineTool } from '../agents/index.js';
import { SCRIPT_TOOL_NAME_MAX_CHARS } from './sandbox/index.js';
import { MAX_CAPABILITIES, MAX_SCRIPT_CHARS, type OrchestrateService } from './orchestrate-service.js';

/** The longest timeoutMs the input accepts; the run is cut to orchestrate.maxTimeoutMs anyway. */
const MAX_INPUT_TIMEOUT_MS = 3_600_000;

export const orchestrateInput = z.strictObject({
  script: z.string().min(1).max(MAX_SCRIPT_CHARS),
  capabilities: z.array(z.string().min(1).max(SCRIPT_TOOL_NAME_MAX_CHARS)).max(MAX_CAPABILITIES).optional(),
  timeoutMs: z.number().int().min(1).max(MAX_INPUT_TIMEOUT_MS).optional(),
});

export function orchestrateTool(service: OrchestrateService) {
  return defineTool({
    name: 'orchestrate',
    description:
      'Runs a JavaScript script (the body of an async function) in a sandbox with no file system, network or process access. ' +
      'Inside it, `await tools.<name>(args)` calls one of your other tools and gives its result (JSON or text); ' +
      '`console.log` writes to stdout; `return` gives the result. Only the result, stdout and a count of tool calls come back, ' +
      'so use it to call many tools or filter large results without reading them all. ' +
      '`capabilities` narrows which tools the script may call; `timeoutMs` bounds its run.',
    input: orchestrateInput,
    execute: (input, ctx) => service.run(input, ctx),
  });
}
