// The SQLite EvidencePort against a real temporary database file, with a second connection as the second writer.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type SqliteDatabase } from '../../../src/store/index.js';
import { createSqliteEvidencePort } from '../../../src/store/sqlite/index.js';
import { evidencePortCases } from '../evidence.cases.js';

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
