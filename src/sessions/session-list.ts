// session.list: one page of sessions with their owner, channel, last outcome, tokens and cost, the count of every
// session the filters match and, apart, how many /v1 sessions were left out per channel. Two queries a page.
import type { SessionCountFilter, SessionOutcome, SessionPort, SessionRecord } from '../store/index.js';
import { decodeListCursor, encodeListCursor } from './list-cursor.js';
import { channelOf } from './session-key.js';
import { readSessionUsage } from './session-usage.js';
import type { SessionListEntry, SessionListPage, SessionListQuery } from './session-views.js';

/** The channel of every session the OpenAI-compatible /v1 surface opens (`default:openai-api:openai:<id>`). */
export const OPENAI_CHANNEL_ID = 'openai';

/** The /v1 channels: one session per request or response id, so session.list leaves them out unless asked. */
export const API_CHANNEL_IDS: readonly string[] = [OPENAI_CHANNEL_ID];

function toEntry(session: SessionRecord): SessionListEntry {
  const usage = readSessionUsage(session.metadata);
  return {
    sessionKey: session.sessionKey,
    agentId: session.agentId,
    messageCount: session.messageCount,
    updatedAt: session.updatedAt,
    metadata: session.metadata,
    ownerId: session.ownerId,
    channelId: channelOf(session.sessionKey) ?? null,
    outcome: session.lastOutcome ?? null,
    tokens: usage.totalTokens,
    costUsd: usage.totalCost,
    ...(session.expiredAt === undefined ? {} : { expiredAt: session.expiredAt }),
    ...(session.archivedAt === undefined ? {} : { archivedAt: session.archivedAt }),
  };
}

export async function listSessions(
  store: Pick<SessionPort, 'list' | 'countByChannel'>,
  query: SessionListQuery,
  now: number,
): Promise<SessionListPage> {
  const { kind, sinceMinutes, agentId, limit, cursor, channelId, outcome, fromMs, toMs, includeApi } = query;
  const sinceBound = sinceMinutes === undefined ? undefined : now - sinceMinutes * 60_000;
  const updatedSince =
    sinceBound === undefined ? fromMs : fromMs === undefined ? sinceBound : Math.max(fromMs, sinceBound);
  // Naming a /v1 channel asks for its sessions.
  const hidesApi = includeApi !== true && (channelId === undefined || !API_CHANNEL_IDS.includes(channelId));
  const filter: SessionCountFilter = {
    ...(kind === undefined || kind === 'all' || kind === 'archived' ? {} : { kind }),
    ...(updatedSince === undefined ? {} : { updatedSince }),
    ...(toMs === undefined ? {} : { updatedBefore: toMs }),
    ...(agentId === undefined ? {} : { agentId }),
    ...(channelId === undefined ? {} : { channelId }),
    ...(outcome === undefined ? {} : { outcome: outcome satisfies SessionOutcome }),
    archived: kind === 'archived',
  };
  // One row more than the page says whether another page follows.
  const [sessions, counts] = await Promise.all([
    store.list({
      ...filter,
      ...(hidesApi ? { excludeChannels: API_CHANNEL_IDS } : {}),
      ...(cursor === undefined ? {} : { after: decodeListCursor(cursor) }),
      limit: limit + 1,
    }),
    store.countByChannel(filter),
  ]);
  let total = 0;
  const hiddenApiSessions: Record<string, number> = {};
  for (const { channelId: channel, count } of counts) {
    if (hidesApi && channel !== null && API_CHANNEL_IDS.includes(channel)) hiddenApiSessions[channel] = count;
    else total += count;
  }
  const page = sessions.slice(0, limit);
  const last = page.at(-1);
  return {
    sessions: page.map(toEntry),
    nextCursor: sessions.length > limit && last !== undefined ? encodeListCursor(last) : null,
    total,
    hiddenApiSessions,
  };
}
