// session.* methods: thin adapters from the catalogue's params (spec: "session" table) to the SessionService.
import { z } from 'zod';
import { sessionCallerOf, sessionKeyStringSchema, type SessionService } from '../../sessions/index.js';
import { defineMethod, noParams, type MethodContext } from '../registry.js';

/** session.search results per call: default and maximum. */
export const SEARCH_LIMIT_DEFAULT = 20;
export const SEARCH_LIMIT_MAX = 100;

const agentId = z.string().min(1).max(128);
// Spec rule 1: the admin methods name the key `session_key`; strict objects refuse `key` as an unknown param.
const sessionKeyParam = z.strictObject({ session_key: sessionKeyStringSchema });

/** rpc clients see the sessions and runs their token owns; an admin caller sees everyone's. */
function ownerFilter(ctx: MethodContext): string | undefined {
  const caller = sessionCallerOf(ctx.caller);
  return caller.isAdmin ? undefined : caller.clientId;
}

export function sessionMethods({ sessions }: { sessions: SessionService }) {
  return [
    defineMethod({
      name: 'session.send',
      scope: 'rpc',
      summary:
        "Runs one agent turn on the session with this string key (created when absent, owned by the caller's token); " +
        "returns the agent response. Another token's session answers -32603 kind forbidden unless the caller is admin.",
      params: z.strictObject({ key: sessionKeyStringSchema, message: z.string().min(1), agentId: agentId.optional() }),
      handler: ({ key, message, agentId: agent }, ctx) =>
        sessions.send({ key, message, ...(agent === undefined ? {} : { agentId: agent }), caller: sessionCallerOf(ctx.caller), signal: ctx.signal }),
    }),
    defineMethod({
      name: 'session.spawn',
      scope: 'rpc',
      summary:
        'Starts a sub-agent run on a new session <tenant>:<user>:subagent:<runId>; returns { runId, sessionKey, status: running } ' +
        'at once and notifies session.completed { sessionKey, result } when done.',
      params: z.strictObject({ parentKey: sessionKeyStringSchema, task: z.string().min(1), agentId: agentId.optional() }),
      handler: ({ parentKey, task, agentId: agent }, ctx) =>
        sessions.spawn({ parentKey, task, ...(agent === undefined ? {} : { agentId: agent }), caller: sessionCallerOf(ctx.caller) }),
    }),
    defineMethod({
      name: 'session.status',
      scope: 'rpc',
      summary: "Model, agent, token totals and steps of the newest session the caller's token owns (zeros when it has none).",
      params: noParams,
      handler: (_params, ctx) => sessions.status(ctx.caller.clientId),
    }),
    defineMethod({
      name: 'session.history',
      scope: 'rpc',
      summary: "Messages of the newest session the caller's token owns (on channelId when given), oldest first.",
      params: z.strictObject({ channelId: z.string().min(1).optional() }),
      handler: async ({ channelId }, ctx) => ({
        messages: await sessions.history({ clientId: ctx.caller.clientId, ...(channelId === undefined ? {} : { channelId }) }),
      }),
    }),
    defineMethod({
      name: 'session.search',
      scope: 'rpc',
      summary:
        'Full-text search over the transcripts of sessions the caller owns (all of them for admin), best match first, ' +
        'one hit per session with a snippet ([term] marks matches).',
      params: z.strictObject({
        query: z.string().min(1).max(1000),
        limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).optional(),
      }),
      handler: ({ query, limit }, ctx) => sessions.search(query, limit ?? SEARCH_LIMIT_DEFAULT, ownerFilter(ctx)),
    }),
    defineMethod({
      name: 'session.run_status',
      scope: 'rpc',
      summary: 'Status and outcome of a spawned run: running, completed, failed, or orphaned (the gateway restarted mid-run).',
      params: z.strictObject({ run_id: z.string().min(1).max(256) }),
      handler: ({ run_id: runId }, ctx) => sessions.runStatus(runId, ownerFilter(ctx)),
    }),
    defineMethod({
      name: 'session.list',
      scope: 'admin',
      summary: 'Sessions, most recently updated first, by kind (all, sub-agent, group, dm) and updated in the last since_minutes.',
      params: z.strictObject({
        kind: z.enum(['all', 'sub-agent', 'group', 'dm']).optional(),
        since_minutes: z.number().positive().optional(),
      }),
      handler: async ({ kind, since_minutes: sinceMinutes }) => ({
        sessions: await sessions.list({ ...(kind === undefined ? {} : { kind }), ...(sinceMinutes === undefined ? {} : { sinceMinutes }) }),
      }),
    }),
    defineMethod({
      name: 'session.delete',
      scope: 'admin',
      summary: 'Deletes a session and its transcript; returns the transcript as a final copy.',
      params: sessionKeyParam,
      handler: ({ session_key: sessionKey }) => sessions.deleteSession(sessionKey),
    }),
    defineMethod({
      name: 'session.reset',
      scope: 'admin',
      summary: 'Clears the messages and cached approval decisions of a session; keeps its metadata.',
      params: sessionKeyParam,
      handler: ({ session_key: sessionKey }) => sessions.reset(sessionKey),
    }),
    defineMethod({
      name: 'session.export',
      scope: 'admin',
      summary: 'The whole session: messages (with tool calls and results), metadata, counts and timestamps.',
      params: sessionKeyParam,
      handler: ({ session_key: sessionKey }) => sessions.exportSession(sessionKey),
    }),
    defineMethod({
      name: 'session.compact',
      scope: 'admin',
      summary: "Summarises all but the newest messages into one system message with the session agent's model.",
      params: z.strictObject({ key: sessionKeyStringSchema }),
      handler: ({ key }, ctx) => sessions.compact(key, ctx.signal),
    }),
    defineMethod({
      name: 'session.reset_conversation',
      scope: 'admin',
      summary:
        'Irreversibly clears durable history, working transcript and runtime session (best-effort, counts only); ' +
        "memory: true also deletes the conversation's memories, purge_derived every derived observation.",
      params: z.strictObject({
        session_key: sessionKeyStringSchema,
        memory: z.boolean().optional(),
        purge_derived: z.boolean().optional(),
      }),
      handler: ({ session_key: sessionKey, memory, purge_derived: purgeDerived }) =>
        sessions.resetConversation({ sessionKey, memory: memory ?? false, purgeDerived: purgeDerived ?? false }),
    }),
  ];
}
