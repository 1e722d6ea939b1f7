// Storage: one SQLite file in WAL mode, its migrations, and the SQLite implementations of the store seams.
export { openDatabase, applyMigrations, type SqliteDatabase } from './database.js';
export { MIGRATIONS, type Migration } from './migrations.js';
export { createSqliteTokenStore } from './token-store.js';
export { createSqliteSessionStore, toFtsQuery } from './session-store.js';
export { createSqliteRunStore, ORPHANED_RUN_ERROR } from './run-store.js';
export { createSqliteResponseStore } from './response-store.js';
