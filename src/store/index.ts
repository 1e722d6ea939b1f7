// Storage as ports only; the backends (store/sqlite) are chosen by app.ts and the offline CLI commands.
export * from './ports/index.js';
