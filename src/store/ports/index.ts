// The storage ports: one async, backend-neutral interface per capability.
export * from './sessions.js';
export * from './runs.js';
export * from './tokens.js';
export * from './responses.js';
