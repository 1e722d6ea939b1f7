// The storage ports: one async, backend-neutral interface per capability, implemented by store/sqlite (and later other backends).
export * from './sessions.js';
export * from './runs.js';
export * from './tokens.js';
export * from './responses.js';
export * from './audit.js';
export * from './evidence.js';
export * from './obs.js';
export * from './store.js';
export * from './memory.js';
export * from './approvals.js';
export * from './jobs.js';
export * from './media.js';
export * from './retention.js';
