// obs.explain: the IncidentReport of one session, assembled purely from recorded evidence.
export { assembleIncidentReport } from './assemble.js';
export { SUMMARY_MAX_BYTES } from './bound.js';
export { explainSession, type ExplainParams } from './explain-session.js';
export type * from './types.js';
