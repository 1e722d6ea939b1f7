// The SQLite EvidencePort against a real temporary database file, with a second connection as the second writer; report reads over seeded rows.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSqliteEvidencePort,
  createSqliteObsPort,
  createSqliteRunPort,
  createWriterThread,
  openDatabase,
  type SqliteDatabase,
  type WriterThread,
} from '../../../src/store/sqlite/index.js';
import { evidenceReadsCases } from '../evidence-reads.cases.js';
import { evidencePortCases } from '../evidence.cases.js';
import { turnReadsCases } from '../turn-reads.cases.js';

evidencePortCases('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-evidence-'));
  const path = join(dir, 'gateway.db');
  const db = openDatabase({ path });
  const connections: SqliteDatabase[] = [db];
  return {
    port: createSqliteEvidencePort(db),
    openWriter() {
      const other = openDatabase({ path });
      connections.push(other);
      return createSqliteEvidencePort(other);
    },
    async close() {
      for (const connection of connections) connection.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

evidencePortCases('sqlite, writes on the writer thread', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-evidence-thread-'));
  const path = join(dir, 'gateway.db');
  const db = openDatabase({ path });
  const threads: WriterThread[] = [createWriterThread(path)];
  const connections: SqliteDatabase[] = [db];
  return {
    port: createSqliteEvidencePort(db, threads[0]),
    openWriter() {
      const other = openDatabase({ path });
      const thread = createWriterThread(path);
      connections.push(other);
      threads.push(thread);
      return createSqliteEvidencePort(other, thread);
    },
    async close() {
      for (const thread of threads) await thread.close();
      for (const connection of connections) connection.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

evidenceReadsCases('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-evidence-reads-'));
  const db = openDatabase({ path: join(dir, 'gateway.db') });
  const runs = createSqliteRunPort(db);
  const obs = createSqliteObsPort(db);
  return {
    port: createSqliteEvidencePort(db),
    async addRuns(rows) {
      for (const row of rows) {
        await runs.create({
          ...row,
          kind: 'spawn',
          task: 't',
          requestedBy: null,
          completedAt: null,
          response: null,
          tokensUsed: null,
          error: null,
          status: 'completed',
          ownerInstance: null,
          heartbeatAt: null,
        });
      }
    },
    async addSignals(rows) {
      await obs.append(rows.map((row) => ({ type: 'health_signal', row })));
    },
    async close() {
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

turnReadsCases('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-turn-reads-'));
  const db = openDatabase({ path: join(dir, 'gateway.db') });
  return {
    port: createSqliteEvidencePort(db),
    async close() {
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
