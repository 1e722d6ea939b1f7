// The session records and the store seam they live behind (implementations are in store/), and a key's parts.
export type { SessionKind, SessionPort, SessionRecord, SessionSearchHit } from '../store/index.js';

/** Object form used by agent.execute (spec: "Session keys"). */
export interface SessionKeyParts {
  tenantId: string;
  userId: string;
  channelId: string;
  peerId?: string;
}

/**
 * A key in both forms, as a turn carries it: the string stores, events and logs use, and its parts (tenant, user,
 * channel). Made once where the key comes in (readSessionKey, makeSessionKey), so nothing after parses it again.
 */
export interface ParsedSessionKey {
  sessionKey: string;
  keyParts: SessionKeyParts;
}
