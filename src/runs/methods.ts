// session.spawn and session.run_status: the JSON-RPC face of sub-agent runs.
import type { MethodContext } from '../rpc/types.js';
import { z } from 'zod';
import { defineMethod } from '../rpc/index.js';
import { sessionCallerOf, sessionKeyStringSchema } from '../sessions/index.js';
import type { SubAgentRuns } from './sub-agent-runs.js';

const agentId = z.string().min(1).max(128);

/** rpc clients see the runs their token started; an admin caller sees everyone's. */
function ownerFilter(ctx: MethodContext): string | undefined {
  const caller = sessionCallerOf(ctx.caller);
  return caller.isAdmin ? undefined : caller.clientId;
}

export function runMethods(runs: SubAgentRuns) {
  return [
    defineMethod({
      name: 'session.spawn',
      scope: 'rpc',
      summary:
        'Starts a sub-agent run on a new session <tenant>:<user>:subagent:<runId>; returns { runId, sessionKey, status: running } ' +
        'at once (status queued when runs.maxRunning are in flight: it starts when one ends) and notifies ' +
        'session.completed { sessionKey, result } when done.',
      params: z.strictObject({
        parentKey: sessionKeyStringSchema,
        task: z.string().min(1),
        agentId: agentId.optional(),
      }),
      handler: ({ parentKey, task, agentId: agent }, ctx) =>
        runs.spawn({
          parentKey,
          task,
          ...(agent === undefined ? {} : { agentId: agent }),
          caller: sessionCallerOf(ctx.caller),
        }),
    }),
    defineMethod({
      name: 'session.run_status',
      scope: 'rpc',
      summary:
        'Status and outcome of a spawned run: running, completed, failed, or orphaned (the gateway restarted mid-run).',
      params: z.strictObject({ run_id: z.string().min(1).max(256) }),
      handler: ({ run_id: runId }, ctx) => runs.runStatus(runId, ownerFilter(ctx)),
    }),
  ];
}
