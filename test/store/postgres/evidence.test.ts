// The PostgreSQL EvidencePort: the shared conformance and report-read cases on a throwaway server, a second pool as the second writer.
import { createRunPort } from '../../../src/store/shared/index.js';
import {
  createPool,
  createPostgresEvidencePort,
  createPostgresObsPort,
  type PgPool,
  postgresStoreDb,
} from '../../../src/store/postgres/index.js';
import { evidenceReadsCases } from '../evidence-reads.cases.js';
import { evidencePortCases } from '../evidence.cases.js';
import { turnReadsCases } from '../turn-reads.cases.js';
import { postgresCases } from './fixture.js';

postgresCases<PgPool>(
  'EvidencePort',
  (backend, open) =>
    evidencePortCases(backend, async () => {
      const fixture = await open();
      // Another replica: its own pool on the same database.
      const others: PgPool[] = [];
      return {
        port: createPostgresEvidencePort(fixture.port),
        openWriter() {
          const other = createPool({ url: fixture.url, maxConnections: 4 });
          others.push(other);
          return createPostgresEvidencePort(other);
        },
        async close() {
          for (const other of others) await other.end();
          await fixture.close();
        },
      };
    }),
  (pool) => pool,
);

postgresCases<PgPool>(
  'EvidencePort report reads',
  (backend, open) =>
    evidenceReadsCases(backend, async () => {
      const fixture = await open();
      const runs = createRunPort(postgresStoreDb(fixture.port));
      const obs = createPostgresObsPort(fixture.port);
      return {
        port: createPostgresEvidencePort(fixture.port),
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
        close: fixture.close,
      };
    }),
  (pool) => pool,
);

postgresCases<PgPool>(
  'EvidencePort reads of turn rows',
  (backend, open) =>
    turnReadsCases(backend, async () => {
      const fixture = await open();
      return { port: createPostgresEvidencePort(fixture.port), close: fixture.close };
    }),
  (pool) => pool,
);
