// The SQLite file: WAL journal mode and versioned migrations applied once and recorded.
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyMigrations, MIGRATIONS, openDatabase, type Migration } from '../../../src/store/sqlite/index.js';

interface MigrationRow {
  version: number;
  name: string;
  applied_at: string;
}

describe('store database', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-db-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('opens the file in WAL journal mode, creating its directory', () => {
    const db = openDatabase({ path: join(dir, 'sub', 'gateway.db') });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    } finally {
      db.close();
    }
  });

  it('creates the file, its -wal and -shm owner-only (0600) whatever the umask, and tightens a readable one', async () => {
    const path = join(dir, 'private', 'gateway.db');
    const previousUmask = process.umask(0o022);
    try {
      openDatabase({ path }).close();
      const db = openDatabase({ path });
      db.prepare('CREATE TABLE written (a TEXT)').run();
      for (const file of [path, `${path}-wal`, `${path}-shm`])
        expect({ file, mode: (await stat(file)).mode & 0o777 }).toEqual({ file, mode: 0o600 });
      expect((await stat(join(dir, 'private'))).mode & 0o777).toBe(0o700);
      db.close();
      await chmod(path, 0o644);
      openDatabase({ path }).close();
      expect((await stat(path)).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(previousUmask);
    }
  });

  it('applies every migration once and records its version and name', () => {
    const path = join(dir, 'gateway.db');
    const db = openDatabase({ path });
    const rows = db
      .prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version')
      .all() as MigrationRow[];
    db.close();
    expect(rows.map((row) => [row.version, row.name])).toEqual(
      MIGRATIONS.map((migration) => [migration.version, migration.name]),
    );
    for (const row of rows) expect(Number.isNaN(Date.parse(row.applied_at))).toBe(false);
  });

  it('applies nothing again when the database is reopened', () => {
    const path = join(dir, 'gateway.db');
    openDatabase({ path }).close();
    const db = openDatabase({ path });
    try {
      expect(applyMigrations(db, MIGRATIONS)).toEqual([]);
      expect(db.prepare('SELECT COUNT(*) FROM schema_migrations').pluck().get()).toBe(MIGRATIONS.length);
      expect(
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'api_tokens'").pluck().get(),
      ).toBe('api_tokens');
    } finally {
      db.close();
    }
  });

  it('applies only the new migrations, in version order, to an existing database', () => {
    const db = openDatabase({ path: ':memory:' });
    try {
      const later: Migration[] = [
        { version: 1001, name: 'second', up: 'ALTER TABLE t1000 ADD COLUMN b TEXT' },
        { version: 1000, name: 'first', up: 'CREATE TABLE t1000 (a TEXT)' },
      ];
      expect(applyMigrations(db, [...MIGRATIONS, ...later])).toEqual([1000, 1001]);
      expect(applyMigrations(db, [...MIGRATIONS, ...later])).toEqual([]);
      db.prepare('INSERT INTO t1000 (a, b) VALUES (?, ?)').run('x', 'y');
    } finally {
      db.close();
    }
  });

  it('rolls back a failing migration and does not record it', () => {
    const db = openDatabase({ path: ':memory:' });
    try {
      const broken: Migration = {
        version: 2000,
        name: 'broken',
        up: 'CREATE TABLE t2000 (a TEXT); INSERT INTO missing_table VALUES (1);',
      };
      expect(() => applyMigrations(db, [broken])).toThrow();
      expect(db.prepare('SELECT COUNT(*) FROM schema_migrations WHERE version = 2000').pluck().get()).toBe(0);
      expect(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 't2000'").pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });
});

describe('store migrations from two processes', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-gateway-db-race-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('never applies a migration twice when another connection migrates at the same time', () => {
    // The gateway and a CLI command (token create, doctor) may open a fresh data dir together. A SQL function
    // lets the second connection act in the middle of the first one's run, at the worst moment.
    const path = join(dir, 'gateway.db');
    const first = openDatabase({ path, migrations: [] });
    const second = openDatabase({ path, migrations: [] });
    second.pragma('busy_timeout = 0');
    const m2: Migration = { version: 3002, name: 'two', up: 'CREATE TABLE race_two (a TEXT)' };
    let interleaved = false;
    first.function('interleave', () => {
      if (!interleaved) {
        interleaved = true;
        try {
          applyMigrations(second, [m2]);
        } catch {
          // Refused while the first connection holds the write lock: that is the safe outcome.
        }
      }
      return 0;
    });
    const m1: Migration = { version: 3001, name: 'one', up: 'SELECT interleave(); CREATE TABLE race_one (a TEXT)' };
    try {
      expect(() => applyMigrations(first, [m1, m2])).not.toThrow();
      expect(interleaved).toBe(true);
      expect(
        first.prepare('SELECT version FROM schema_migrations WHERE version > 3000 ORDER BY version').pluck().all(),
      ).toEqual([3001, 3002]);
      expect(applyMigrations(second, [m1, m2])).toEqual([]);
    } finally {
      first.close();
      second.close();
    }
  });
});
