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

export type { SessionKeyParts } from '../turns/index.js';
