// The `a2a:` tool source: an agent's `a2a:<remote>` entry as one tool, `a2a_<remote>`, that delegates a task to the
// remote A2A agent and answers its final text and artifacts with the remote task id and state; a remote not
// configured is offered as a failing stand-in (a2a_unavailable), as MCP's servers are.
import { z } from 'zod';
import { defineTool, type ToolDefinition, type ToolSource } from '../agents/index.js';
import type { A2aConfig } from '../config/index.js';
import { a2aRemoteNotConfigured, isGatewayError } from '../errors.js';
import type { AuditInput } from '../obs/index.js';
import type { Logger } from 'pino';
import type { DelegationLimits } from './remote-client.js';

export interface RemoteToolSourceDeps {
  remotes: () => A2aConfig['remotes'];
  limits: () => DelegationLimits;
  audit: { record(input: AuditInput): void };
  newId: () => string;
  log: Logger;
}

/** Characters providers accept in a tool name (OpenAI: ^[a-zA-Z0-9_-]{1,64}$); remote names are within it. */
export const a2aToolName = (remote: string) => `a2a_${remote}`.slice(0, 64);

const delegateInput = z.strictObject({ message: z.string().min(1).max(200_000) });

export function createRemoteToolSource(deps: RemoteToolSourceDeps): ToolSource {
  function toolOf(remote: string): ToolDefinition {
    const config = deps.remotes()[remote];
    if (config === undefined) {
      const error = a2aRemoteNotConfigured(remote);
      return {
        name: a2aToolName(remote),
        description: `Unavailable: ${error.message}. Calling it fails; tell the user this agent cannot be reached now.`,
        input: z.record(z.string(), z.unknown()),
        inputSchema: { type: 'object', properties: {} },
        unavailable: error.message,
        execute: () => Promise.reject(error),
      };
    }
    return defineTool({
      name: a2aToolName(remote),
      description:
        config.description ??
        `Delegate a task to the remote A2A agent "${remote}": send it a message; its final answer comes back.`,
      input: delegateInput,
      async execute(input, ctx) {
        const refs: Record<string, unknown> = { remote };
        try {
          // The A2A client is loaded at the first delegation, not at start.
          const { delegate } = await import('./remote-client.js');
          const result = await delegate(
            remote,
            config,
            input.message,
            { messageId: deps.newId() },
            deps.limits(),
            ctx.signal,
          );
          Object.assign(refs, { remoteTaskId: result.remoteTaskId, remoteState: result.state });
          return result;
        } catch (error) {
          refs.errorKind = isGatewayError(error) ? error.kind : 'failed';
          if (isGatewayError(error))
            Object.assign(refs, { remoteTaskId: error.details.remoteTaskId, remoteState: error.details.remoteState });
          throw error;
        } finally {
          deps.audit.record({
            kind: 'a2a.delegation',
            classification: 'a2a',
            action: a2aToolName(remote),
            actor: ctx.ownerId,
            agentId: ctx.agentId,
            outcome: refs.errorKind === undefined ? 'ok' : 'error',
            ...(ctx.turn === undefined ? {} : { traceId: ctx.turn.traceId }),
            refs,
          });
        }
      },
    });
  }

  return {
    knows: (ref) => ref in deps.remotes(),
    resolve: async (ref) => [toolOf(ref)],
  };
}
