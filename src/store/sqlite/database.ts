// Opens the gateway's single SQLite file in WAL mode and applies the versioned migrations in order.
import Database from 'better-sqlite3';
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export type SqliteDatabase = Database.Database;

export interface OpenDatabaseOptions {
  /** File path, or ':memory:' for a private in-memory database. */
  path: string;
  migrations?: readonly Migration[];
}

/** The file holds token hashes and transcripts: owner only (DESIGN §3), whatever the process umask. */
const DATABASE_FILE_MODE = 0o600;

/**
 * SQLite creates the -wal and -shm files with the mode of the main file, so creating the main file 0600 before
 * SQLite opens it (and taking group and other bits off one an older version left readable) covers all three.
 */
function preparePrivateFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', DATABASE_FILE_MODE));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    const mode = statSync(file, { throwIfNoEntry: false })?.mode;
    if (mode !== undefined && (mode & 0o077) !== 0) chmodSync(file, mode & 0o700);
  }
}

/** How much of the file reads may map: 256 MiB. */
const MMAP_BYTES = 256 * 1024 * 1024;

export function openDatabase({ path, migrations = MIGRATIONS }: OpenDatabaseOptions): SqliteDatabase {
  if (path !== ':memory:') preparePrivateFile(path);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // Another process (the CLI's `token create`) may hold the write lock briefly.
  db.pragma('busy_timeout = 5000');
  // Reads map the file instead of copying each page through a read call: a memory search's rerank reads hundreds of
  // scattered vector rows. The map is address space, not memory: pages are loaded (and shared) as they are touched.
  db.pragma(`mmap_size = ${MMAP_BYTES}`);
  applyMigrations(db, migrations);
  return db;
}

export function applyMigrations(db: SqliteDatabase, migrations: readonly Migration[]): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const isApplied = db.prepare<[number], number>('SELECT 1 FROM schema_migrations WHERE version = ?').pluck();
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  // Another process (the CLI beside a starting gateway) may migrate the same file: the check runs inside an
  // IMMEDIATE transaction, which holds the write lock, so no migration is applied twice.
  const applyOne = db.transaction((migration: Migration): boolean => {
    if (isApplied.get(migration.version) !== undefined) return false;
    db.exec(migration.up);
    record.run(migration.version, migration.name, new Date().toISOString());
    return true;
  });
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  const newlyApplied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (!applied.has(migration.version) && applyOne.immediate(migration)) newlyApplied.push(migration.version);
  }
  return newlyApplied;
}
