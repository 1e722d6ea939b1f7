// session.* methods (spawn and run_status live in runs/): thin adapters from the catalogue's params to the SessionService.
import type { MethodContext } from '../rpc/types.js';
import { z } from 'zod';
import { defineMethod, noParams } from '../rpc/index.js';
import { SESSION_OUTCOMES } from '../store/index.js';
import { sessionCallerOf } from './session-access.js';
import { sessionKeyStringSchema } from './session-key.js';
import type { SessionService } from './session-service.js';

/** session.search results per call: default and maximum. */
export const SEARCH_LIMIT_DEFAULT = 20;
export const SEARCH_LIMIT_MAX = 100;
/** session.list sessions per page: default and maximum. */
export const LIST_LIMIT_DEFAULT = 100;
export const LIST_LIMIT_MAX = 500;
/** A cursor is a base64url [updatedAt, sessionKey]; keys are bounded, so longer text is not one of ours. */
const LIST_CURSOR_MAX_CHARS = 2048;

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
        sessions.send({
          key,
          message,
          ...(agent === undefined ? {} : { agentId: agent }),
          caller: sessionCallerOf(ctx.caller),
          signal: ctx.signal,
        }),
    }),
    defineMethod({
      name: 'session.status',
      scope: 'rpc',
      summary:
        "Model, agent, token totals and steps of the newest session the caller's token owns (zeros when it has none).",
      params: noParams,
      handler: (_params, ctx) => sessions.status(ctx.caller.clientId),
    }),
    defineMethod({
      name: 'session.history',
      scope: 'rpc',
      summary: "Messages of the newest session the caller's token owns (on channelId when given), oldest first.",
      params: z.strictObject({ channelId: z.string().min(1).optional() }),
      handler: async ({ channelId }, ctx) => ({
        messages: await sessions.history({
          clientId: ctx.caller.clientId,
          ...(channelId === undefined ? {} : { channelId }),
        }),
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
      name: 'session.list',
      scope: 'admin',
      summary:
        'Sessions, most recently updated first, by kind (all, sub-agent, group, dm), agentId and updated in the last since_minutes; ' +
        `one page of limit (default ${LIST_LIMIT_DEFAULT}, at most ${LIST_LIMIT_MAX}) and nextCursor for the next page (null on the last). ` +
        "An expired session is listed with expiredAt; archived sub-agent sessions (archivedAt) only with kind 'archived'. " +
        'Also filters by channelId, outcome of the last turn (completed, truncated, error, budget_exceeded, cancelled) and ' +
        'updated-at range fromMs..toMs (epoch ms, both included). Each row has ownerId, channelId, outcome, tokens and ' +
        'costUsd; total counts every match. Sessions of the /v1 surface (channel openai) are left out unless includeApi ' +
        'is true or channelId names it, counted per channel in hiddenApiSessions.',
      params: z.strictObject({
        kind: z.enum(['all', 'sub-agent', 'group', 'dm', 'archived']).optional(),
        since_minutes: z.number().positive().optional(),
        agentId: agentId.optional(),
        limit: z.number().int().min(1).max(LIST_LIMIT_MAX).optional(),
        cursor: z.string().min(1).max(LIST_CURSOR_MAX_CHARS).optional(),
        channelId: z.string().min(1).max(256).optional(),
        outcome: z.enum(SESSION_OUTCOMES).optional(),
        fromMs: z.number().int().nonnegative().optional(),
        toMs: z.number().int().nonnegative().optional(),
        includeApi: z.boolean().optional(),
      }),
      handler: ({ kind, since_minutes: sinceMinutes, agentId: agent, limit, cursor, channelId, outcome, ...range }) =>
        sessions.list({
          ...(kind === undefined ? {} : { kind }),
          ...(sinceMinutes === undefined ? {} : { sinceMinutes }),
          ...(agent === undefined ? {} : { agentId: agent }),
          ...(cursor === undefined ? {} : { cursor }),
          ...(channelId === undefined ? {} : { channelId }),
          ...(outcome === undefined ? {} : { outcome }),
          ...(range.fromMs === undefined ? {} : { fromMs: range.fromMs }),
          ...(range.toMs === undefined ? {} : { toMs: range.toMs }),
          ...(range.includeApi === undefined ? {} : { includeApi: range.includeApi }),
          limit: limit ?? LIST_LIMIT_DEFAULT,
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
      summary: 'Clears the messages of a session; keeps its metadata.',
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
        'Irreversibly clears durable history and working transcript (best-effort, counts only). With memory: true it also ' +
        "deletes the memories learned in this session (the session's agent and tenant) and unlinks them from derived " +
        'observations (one left with no source goes too); purge_derived also deletes every derived observation in that scope. ' +
        'memoriesDeleted is omitted when memory was not asked for or no memory store is wired, and is 0 when the memory delete failed.',
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
