// Storage as ports only (one async, backend-neutral interface per capability); the backends (store/sqlite,
// store/postgres, most ports once in store/shared) are chosen by app.ts and the offline CLI commands.
export * from './ports/sessions.js';
export * from './ports/runs.js';
export * from './ports/tokens.js';
export * from './ports/responses.js';
export * from './ports/audit.js';
export * from './ports/evidence.js';
export * from './ports/obs.js';
export * from './ports/store.js';
export * from './ports/memory.js';
export * from './ports/approvals.js';
export * from './ports/jobs.js';
export * from './ports/learning.js';
export * from './ports/media.js';
export * from './ports/retention.js';
export * from './ports/graphs.js';
export * from './ports/a2a-tasks.js';
export * from './ports/budgets.js';
