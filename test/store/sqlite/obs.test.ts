// The SQLite ObsPort against a real temporary database file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteObsPort, createWriterThread, openDatabase } from '../../../src/store/sqlite/index.js';
import { obsPortCases } from '../obs.cases.js';

obsPortCases('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-obs-'));
  const db = openDatabase({ path: join(dir, 'gateway.db') });
  return {
    port: createSqliteObsPort(db),
    async close() {
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

obsPortCases('sqlite, writes on the writer thread', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-gateway-obs-thread-'));
  const path = join(dir, 'gateway.db');
  const db = openDatabase({ path });
  const writers = createWriterThread(path);
  return {
    port: createSqliteObsPort(db, writers),
    async close() {
      await writers.close();
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
