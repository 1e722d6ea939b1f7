// agent.execute and agent.stream: run one agent turn for the caller and return its answer.
import type { ParsedSessionKey } from '../sessions/types.js';
import type { MethodContext } from '../rpc/types.js';
import { z } from 'zod';
import { scopeSchema } from '../config/index.js';
import { defineMethod } from '../rpc/index.js';
import { makeSessionKey, sessionCallerOf, sessionKeyObjectSchema } from '../sessions/index.js';
import { turnReply } from './turn-reply.js';
import type { TurnRunner } from './types.js';

const executeParams = z.strictObject({
  message: z.string().min(1).max(1_000_000),
  agentId: z.string().min(1).optional(),
  sessionKey: sessionKeyObjectSchema.optional(),
  /** Accepted for compatibility; the caller's token scopes already bound what the turn may do. */
  scopes: z.array(scopeSchema).optional(),
});

type ExecuteParams = z.infer<typeof executeParams>;

/** The object form is the key's parts already: the turn carries them as given, with the string made from them. */
function sessionKeyFor(params: ExecuteParams, ctx: MethodContext): ParsedSessionKey {
  // Without a key, each client gets one ongoing conversation of its own.
  return makeSessionKey(params.sessionKey ?? { userId: ctx.caller.clientId, channelId: 'rpc' });
}

export function agentTurnMethods({ runner }: { runner: TurnRunner }) {
  const execute = async (params: ExecuteParams, ctx: MethodContext) => {
    const result = await runner.run({
      ...sessionKeyFor(params, ctx),
      message: params.message,
      caller: sessionCallerOf(ctx.caller),
      signal: ctx.signal,
      ...(params.agentId === undefined ? {} : { agentId: params.agentId }),
    });
    return turnReply(result);
  };
  return [
    defineMethod({
      name: 'agent.execute',
      scope: 'rpc',
      summary:
        "Runs one agent turn; a new sessionKey creates the session, owned by the caller's token (another token's " +
        'session answers -32603 kind forbidden unless the caller is admin). Returns {response, tokensUsed, finishReason}.',
      params: executeParams,
      handler: execute,
    }),
    defineMethod({
      name: 'agent.stream',
      scope: 'rpc',
      summary: 'Same as agent.execute; token streaming is served by GET /api/chat/stream, not JSON-RPC.',
      params: executeParams,
      handler: async (params, ctx) => {
        ctx.log.warn(
          { method: 'agent.stream' },
          'token streaming over JSON-RPC is not implemented; answering non-streaming (use GET /api/chat/stream)',
        );
        return execute(params, ctx);
      },
    }),
  ];
}
