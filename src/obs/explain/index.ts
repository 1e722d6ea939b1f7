// obs.explain: the IncidentReport of one session, assembled purely from recorded evidence.
export { assembleIncidentReport, type ExplainOptions } from './assemble.js';
export { SUMMARY_MAX_BYTES, DEPTH_CAPS } from './bound.js';
export { sessionNotFound } from './not-found.js';
export { explainSession, type ExplainParams } from './explain-session.js';
export type * from './types.js';
