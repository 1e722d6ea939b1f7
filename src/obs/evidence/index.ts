// Evidence for the reports: record kinds and shapes, defensive readers, and the loaders over the EvidencePort (see README.md).
export { TRAJECTORY_KIND, SIGNAL_KIND, VOICE_ERROR_KINDS, VOICE_SOURCES } from './kinds.js';
export { createSessionLoader } from './session-loader.js';
export { createFleetLoader } from './fleet-loader.js';
export { isDegradedEnding } from './endings.js';
