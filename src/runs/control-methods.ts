// run.kill, lease.revoke, run.list and run.get: the operator's view and controls of run trees (admin scope).
import { z } from 'zod';
import { invalidParams, leaseNotFound, runNotFound } from '../errors.js';
import { defineMethod } from '../rpc/index.js';
import { RUN_KINDS, RUN_STATUSES, type RunPort, type RunRecord } from '../store/index.js';
import type { RunControl } from './run-control.js';
import { toView, type RunStatusView } from './sub-agent-runs.js';

/** run.list answers this many runs when no limit is given, and never more than RUN_LIST_MAX_LIMIT. */
export const RUN_LIST_DEFAULT_LIMIT = 50;
export const RUN_LIST_MAX_LIMIT = 500;

const runId = z.string().min(1).max(256);

/** The run entry of session.run_status, plus what places the run in its tree and, while it runs, its lease. */
export type RunEntry = RunStatusView &
  Pick<RunRecord, 'kind' | 'rootRunId' | 'parentKey'> & {
    /** The capability lease a live orchestrate run holds (lease.revoke takes it). */
    leaseId?: string;
  };

const entryOf = (run: RunRecord, now: number, leaseId: string | undefined): RunEntry => ({
  ...toView(run, now),
  kind: run.kind,
  rootRunId: run.rootRunId,
  parentKey: run.parentKey,
  ...(leaseId === undefined ? {} : { leaseId }),
});

export function controlMethods({
  control,
  runs,
  now,
}: {
  control: Pick<RunControl, 'kill' | 'revoke' | 'runOfLease' | 'leaseOf'>;
  runs: Pick<RunPort, 'get' | 'list'>;
  now: () => number;
}) {
  return [
    defineMethod({
      name: 'run.kill',
      scope: 'admin',
      summary:
        "Hard kill: aborts every live run of the run's tree (its rootRunId) at once; each ends revoked. Emits run:killed and a killed health signal.",
      params: z.strictObject({ runId }),
      handler: ({ runId: id }, ctx) => control.kill(id, ctx.caller.clientId),
    }),
    defineMethod({
      name: 'lease.revoke',
      scope: 'admin',
      summary:
        "Cooperative revoke: every live run of the run's tree stops at its turn's next step boundary and ends revoked; an orchestrate run's later tool calls are denied and its pending one rejected. Names the run by runId, or by the leaseId a live orchestrate run holds. Emits run:revoked.",
      params: z.strictObject({ runId: runId.optional(), leaseId: runId.optional() }),
      handler: ({ runId: id, leaseId }, ctx) => {
        if (id !== undefined && leaseId === undefined) return control.revoke(id, ctx.caller.clientId);
        if (id !== undefined || leaseId === undefined) throw invalidParams('Give exactly one of runId and leaseId');
        const target = control.runOfLease(leaseId);
        if (target === undefined) throw leaseNotFound(leaseId);
        return control.revoke(target, ctx.caller.clientId);
      },
    }),
    defineMethod({
      name: 'run.list',
      scope: 'admin',
      summary: `Runs (spawns, cron fires, webhooks), newest first, as run.get entries; limit default ${RUN_LIST_DEFAULT_LIMIT}, at most ${RUN_LIST_MAX_LIMIT}.`,
      params: z.strictObject({
        status: z.enum(RUN_STATUSES).optional(),
        kind: z.enum(RUN_KINDS).optional(),
        rootRunId: runId.optional(),
        limit: z.number().int().min(1).max(RUN_LIST_MAX_LIMIT).optional(),
      }),
      handler: async ({ status, kind, rootRunId, limit = RUN_LIST_DEFAULT_LIMIT }, ctx) => {
        const found = await runs.list(
          {
            ...(status === undefined ? {} : { status }),
            ...(kind === undefined ? {} : { kind }),
            ...(rootRunId === undefined ? {} : { rootRunId }),
            limit,
          },
          ctx.signal,
        );
        const at = now();
        return { runs: found.map((run) => entryOf(run, at, control.leaseOf(run.runId))) };
      },
    }),
    defineMethod({
      name: 'run.get',
      scope: 'admin',
      summary:
        "One run: the run entry of session.run_status plus its kind, rootRunId, parentKey and, while a live orchestrate run holds one, its leaseId; any client's run.",
      params: z.strictObject({ runId }),
      handler: async ({ runId: id }) => {
        const run = await runs.get(id);
        if (run === undefined) throw runNotFound(id, 'runId');
        return entryOf(run, now(), control.leaseOf(run.runId));
      },
    }),
  ];
}
