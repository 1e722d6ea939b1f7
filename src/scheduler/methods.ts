// cron.* (all rpc scope): thin adapters from the spec's params to the job service.
import { z } from 'zod';
import { defineMethod } from '../rpc/index.js';
import { heartbeatTargetSchema, wakeGateSchema } from '../store/index.js';
import { sessionCallerOf } from '../sessions/index.js';
import { HEARTBEAT_OK } from './heartbeat.js';
import type { JobService } from './job-service.js';

// U+0000 ends the owner part of a cron.list cursor (list-cursor.ts), and PostgreSQL text cannot hold it.
const name = z
  .string()
  .min(1)
  .max(128)
  .refine((text) => !text.includes('\u0000'), 'must not contain U+0000');
/** An admin names the owner of a job whose name several tokens use; another caller may name only itself. */
const ownerId = z.string().min(1).max(128);
/** The last name, and its owner when the next page goes on within that name. */
const cursor = z.string().min(1).max(257);
/** Said of every method that addresses a job by name. */
const BY_NAME =
  " A name means the caller's own job; an admin names another token's with ownerId when several tokens use the name.";
/** cron.list jobs per page: default and maximum. */
export const CRON_LIST_LIMIT_DEFAULT = 100;
export const CRON_LIST_LIMIT_MAX = 500;
const agentId = z.string().min(1).max(128);
const message = z.string().min(1).max(32_000);

const schedule = z.strictObject({
  kind: z.enum(['cron', 'interval', 'once']),
  expr: z.string().min(1).max(256).optional(),
  tz: z.string().min(1).max(64).optional(),
  everyMs: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  at: z.string().min(1).max(64).optional(),
});

export function cronMethods(service: JobService) {
  return [
    defineMethod({
      name: 'cron.list',
      scope: 'rpc',
      summary:
        "The caller's scheduled jobs (an admin token sees every token's) by name then ownerId, each with its tz and next fire; one page of " +
        `limit (default ${CRON_LIST_LIMIT_DEFAULT}, at most ${CRON_LIST_LIMIT_MAX}) and nextCursor for the next page (null on the last).`,
      params: z.strictObject({
        limit: z.number().int().min(1).max(CRON_LIST_LIMIT_MAX).optional(),
        // The previous page's nextCursor.
        cursor: cursor.optional(),
      }),
      handler: ({ limit, cursor }, ctx) =>
        service.list(
          sessionCallerOf(ctx.caller),
          { limit: limit ?? CRON_LIST_LIMIT_DEFAULT, ...(cursor === undefined ? {} : { cursor }) },
          ctx.signal,
        ),
    }),
    defineMethod({
      name: 'cron.add',
      scope: 'rpc',
      summary:
        'Adds a job: schedule kind cron {expr, tz (IANA, default UTC)}, interval {everyMs} or once {at (ISO 8601, future)}; ' +
        'optional wakeGate {kind: events, events, minCount} or {kind: tool, tool, args}. Returns the job entry. Names are unique per token; ' +
        'a token has at most scheduler.maxJobsPerOwner jobs, and fires at least scheduler.minIntervalMs apart (a cron expression at its closest). ' +
        `A heartbeat {channelId, chatId, threadId?} (admin) makes it a heartbeat job: message is its prompt (optional, a default prompt), an answer of exactly ${HEARTBEAT_OK} delivers nothing, any other is delivered to that chat.`,
      params: z.strictObject({
        name,
        message: message.optional(),
        agentId: agentId.optional(),
        schedule,
        wakeGate: wakeGateSchema.optional(),
        heartbeat: heartbeatTargetSchema.optional(),
      }),
      handler: (params, ctx) => service.add(params, sessionCallerOf(ctx.caller)),
    }),
    defineMethod({
      name: 'cron.update',
      scope: 'rpc',
      summary: `Changes only the supplied fields of a job (wakeGate null removes the gate, heartbeat null makes it an ordinary job); returns the job entry.${BY_NAME}`,
      params: z.strictObject({
        name,
        ownerId: ownerId.optional(),
        message: message.optional(),
        agentId: agentId.optional(),
        schedule: schedule.optional(),
        wakeGate: wakeGateSchema.nullable().optional(),
        heartbeat: heartbeatTargetSchema.nullable().optional(),
        enabled: z.boolean().optional(),
      }),
      handler: (params, ctx) => service.update(params, sessionCallerOf(ctx.caller)),
    }),
    defineMethod({
      name: 'cron.remove',
      scope: 'rpc',
      summary: `Removes a job and its run entries; returns { removed: true, name }.${BY_NAME}`,
      params: z.strictObject({ name, ownerId: ownerId.optional() }),
      handler: (params, ctx) => service.remove(params, sessionCallerOf(ctx.caller)),
    }),
    defineMethod({
      name: 'cron.status',
      scope: 'rpc',
      summary: `A job's { id, name, scheduleKind, nextRunAtMs, enabled, lastRunAtMs?, lastError? }.${BY_NAME}`,
      params: z.strictObject({ name, ownerId: ownerId.optional() }),
      handler: (params, ctx) => service.status(params, sessionCallerOf(ctx.caller)),
    }),
    defineMethod({
      name: 'cron.runs',
      scope: 'rpc',
      summary: `A job's run entries, newest first: { ts, jobId, status ok|error|skipped, durationMs, summary?, error?, toolCalls?, estTurnsSaved?, rootRunId? }.${BY_NAME}`,
      params: z.strictObject({
        jobName: name,
        ownerId: ownerId.optional(),
        limit: z.number().int().positive().max(10_000).optional(),
        agentId: agentId.optional(),
      }),
      handler: (params, ctx) => service.runs(params, sessionCallerOf(ctx.caller), ctx.signal),
    }),
    defineMethod({
      name: 'cron.run',
      scope: 'rpc',
      summary: `Fires a job now: mode force (default; name required) fires that job, mode due fires every overdue job. Returns { triggered: true, mode, jobName? }.${BY_NAME}`,
      params: z.strictObject({
        name: name.optional(),
        ownerId: ownerId.optional(),
        mode: z.enum(['force', 'due']).optional(),
      }),
      handler: (params, ctx) => service.run(params, sessionCallerOf(ctx.caller)),
    }),
  ];
}
