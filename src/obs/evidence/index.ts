// Evidence for the reports: record kinds and shapes, defensive readers, and the loaders over the EvidencePort (see README.md).
export { createSessionLoader } from './session-loader.js';
export { createFleetLoader } from './fleet-loader.js';
