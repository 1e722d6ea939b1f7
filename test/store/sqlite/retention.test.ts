// The SQLite RetentionPort against a real temporary database file: deletes on this connection, and on the writer thread;
// a table too large to count on request reports its rowid span; every table's oldest rows are found through an index.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSqliteAuditPort,
  createSqliteEvidencePort,
  createSqliteObsPort,
  createSqliteRetentionPort,
  createWriterThread,
  openDatabase,
  sqliteStoreDb,
} from '../../../src/store/sqlite/index.js';
import {
  createGraphPort,
  createLearningPort,
  EVIDENCE_SOURCES,
  EVIDENCE_TIME_COLUMNS,
} from '../../../src/store/shared/index.js';
import { describe, expect, it } from 'vitest';
import { EVIDENCE_TABLES, EXACT_COUNT_MAX_ROWS } from '../../../src/store/index.js';
import { retentionPortCases } from '../retention.cases.js';

retentionPortCases('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-retention-'));
  const db = openDatabase({ path: join(dir, 'gateway.db') });
  return {
    port: createSqliteRetentionPort(db),
    evidence: createSqliteEvidencePort(db),
    obs: createSqliteObsPort(db),
    audit: createSqliteAuditPort(db),
    learning: createLearningPort(sqliteStoreDb(db)),
    graphs: createGraphPort(sqliteStoreDb(db)),
    async close() {
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

retentionPortCases('sqlite, deletes on the writer thread', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-retention-thread-'));
  const path = join(dir, 'gateway.db');
  const db = openDatabase({ path });
  const writers = createWriterThread(path);
  return {
    port: createSqliteRetentionPort(db, writers),
    evidence: createSqliteEvidencePort(db, writers),
    obs: createSqliteObsPort(db, writers),
    audit: createSqliteAuditPort(db),
    learning: createLearningPort(sqliteStoreDb(db)),
    graphs: createGraphPort(sqliteStoreDb(db)),
    async close() {
      await writers.close();
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe('SQLite RetentionPort size of a large table', () => {
  it('counts up to EXACT_COUNT_MAX_ROWS rows and estimates past it from the rowid span', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-retention-large-'));
    const db = openDatabase({ path: join(dir, 'gateway.db') });
    try {
      const port = createSqliteRetentionPort(db);
      const rows = EXACT_COUNT_MAX_ROWS + 5;
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        INSERT INTO delivery_traces (ts, channel_id, channel_type, outcome, latency_ms) SELECT i, 'ws', 'ws', 'success', 1 FROM n`,
      ).run(rows);
      const delivery = () => port.size().then((size) => size.tables.find((table) => table.table === 'delivery_traces'));
      expect(await delivery()).toEqual({ table: 'delivery_traces', rows, rowsExact: false, oldestMs: 1, bytes: null });
      expect(await port.deleteBefore('delivery_traces', 11, 1_000)).toBe(10);
      expect(await delivery()).toEqual({
        table: 'delivery_traces',
        rows: EXACT_COUNT_MAX_ROWS - 5,
        rowsExact: true,
        oldestMs: 11,
        bytes: null,
      });
    } finally {
      db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite RetentionPort finding the oldest rows', () => {
  it("reads each evidence table's oldest rows through an index on its time, neither scanning nor sorting the table", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-retention-plan-'));
    const db = openDatabase({ path: join(dir, 'gateway.db') });
    try {
      for (const table of EVIDENCE_TABLES) {
        const [source, time] = [EVIDENCE_SOURCES[table], EVIDENCE_TIME_COLUMNS[table]];
        const plan = db
          .prepare<[number, number], { detail: string }>(
            `EXPLAIN QUERY PLAN SELECT rowid FROM ${source} WHERE ${time} < ? ORDER BY ${time} LIMIT ?`,
          )
          .all(1_000, 500)
          .map((row) => row.detail);
        expect(plan, table).toEqual([
          expect.stringMatching(new RegExp(`^SEARCH ${source} USING .*INDEX .*\\(${time}<\\?\\)$`)),
        ]);
      }
    } finally {
      db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
