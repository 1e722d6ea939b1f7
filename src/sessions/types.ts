// Session and run records and the store seams they live behind (SQLite implementations are in store/).
export type {
  RunRecord,
  RunStatus,
  RunPort as RunStore,
  SessionKind,
  SessionListFilter,
  SessionPort as SessionStore,
  SessionRecord,
  SessionSearchHit,
} from '../store/index.js';

/** Object form used by agent.execute (spec: "Session keys"). */
export interface SessionKeyParts {
  tenantId: string;
  userId: string;
  channelId: string;
  peerId?: string;
}

