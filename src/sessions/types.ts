// The session records and the store seam they live behind (implementations are in store/).
export type { SessionKind, SessionListFilter, SessionPort, SessionRecord, SessionSearchHit } from '../store/index.js';
