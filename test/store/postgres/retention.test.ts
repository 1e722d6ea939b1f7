// The PostgreSQL RetentionPort: the shared conformance cases on a throwaway server; every table's oldest rows are found
// through an index.
import { describe, expect, it } from 'vitest';
import { EVIDENCE_TABLES } from '../../../src/store/index.js';
import {
  createAuditPort,
  createGraphPort,
  createLearningPort,
  EVIDENCE_SOURCES,
  EVIDENCE_TIME_COLUMNS,
} from '../../../src/store/shared/index.js';
import {
  createPostgresEvidencePort,
  createPostgresObsPort,
  createPostgresRetentionPort,
  type PgPool,
  postgresStoreDb,
} from '../../../src/store/postgres/index.js';
import { retentionPortCases } from '../retention.cases.js';
import { postgresCases } from './fixture.js';

postgresCases<PgPool>(
  'RetentionPort',
  (backend, open) =>
    retentionPortCases(backend, async () => {
      const fixture = await open();
      return {
        port: createPostgresRetentionPort(fixture.port),
        evidence: createPostgresEvidencePort(fixture.port),
        obs: createPostgresObsPort(fixture.port),
        audit: createAuditPort(postgresStoreDb(fixture.port)),
        learning: createLearningPort(postgresStoreDb(fixture.port)),
        graphs: createGraphPort(postgresStoreDb(fixture.port)),
        close: fixture.close,
      };
    }),
  (pool) => pool,
);

postgresCases<PgPool>(
  'RetentionPort plans',
  (backend, open) =>
    describe(`RetentionPort finding the oldest rows: ${backend}`, () => {
      it("reads each evidence table's oldest rows through an index on its time, neither scanning nor sorting the table", async () => {
        const fixture = await open();
        const client = await fixture.port.connect();
        try {
          // An empty table would be read whole and sorted however it is indexed: the planner is told to avoid both
          // where an index allows it.
          for (const setting of ['enable_seqscan', 'enable_bitmapscan', 'enable_sort'])
            await client.query(`SET ${setting} = off`);
          for (const table of EVIDENCE_TABLES) {
            const [source, time] = [EVIDENCE_SOURCES[table], EVIDENCE_TIME_COLUMNS[table]];
            const plan = await client.query<{ 'QUERY PLAN': string }>(
              `EXPLAIN SELECT 1 FROM ${source} WHERE ${time} < 1000 ORDER BY ${time} LIMIT 500`,
            );
            const lines = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
            expect(lines, table).toMatch(new RegExp(`Index (Only )?Scan using \\w+ on ${source}`));
            expect(lines, table).not.toMatch(/Seq Scan|Sort/);
          }
        } finally {
          client.release();
          await fixture.close();
        }
      });
    }),
  (pool) => pool,
);
