// The SQLite ObsPort against a real temporary database file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteObsPort, openDatabase } from '../../../src/store/sqlite/index.js';
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
