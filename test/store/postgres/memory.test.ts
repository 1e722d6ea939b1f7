// The PostgreSQL MemoryPort: the shared conformance cases (exact cosine lane) against a fresh database on a throwaway
// server, and migration 7 (memory owners) on a database from before it.
import { describe, expect, it } from 'vitest';
import {
  createPool,
  createPostgresMemoryPort,
  migratePostgres,
  POSTGRES_MIGRATIONS,
  type PgPool,
} from '../../../src/store/postgres/index.js';
import { POSTGRES_SKIP_REASON, postgresBinDir, usePostgresServer } from '../../support/postgres-server.js';
import { memoryEntry, memoryPortCases } from '../memory.cases.js';
import { postgresCases } from './fixture.js';

postgresCases<PgPool>(
  'MemoryPort',
  (backend, open) =>
    memoryPortCases(`${backend}, exact cosine`, async (options) => {
      const fixture = await open();
      const port = createPostgresMemoryPort(fixture.port, {
        ...(options?.embeddingCacheMaxEntries === undefined
          ? {}
          : { embeddingCacheMaxEntries: options.embeddingCacheMaxEntries, embeddingCacheEvictionBatch: 1 }),
        ...(options?.now === undefined ? {} : { now: options.now }),
      });
      return { port, close: fixture.close };
    }),
  (pool) => pool,
);

describe.skipIf(postgresBinDir === undefined)(
  `migration 7: memory owners${postgresBinDir === undefined ? ` (${POSTGRES_SKIP_REASON})` : ''}`,
  () => {
    const server = usePostgresServer();

    it("gives each entry its source session's owner, else none (an operator's), and the entries stay searchable", async () => {
      const database = await server().freshDatabase({ empty: true });
      const pool = createPool({ url: database.url, maxConnections: 2 });
      try {
        expect(
          await migratePostgres(
            pool,
            POSTGRES_MIGRATIONS.filter((migration) => migration.version < 7),
          ),
        ).not.toContain(7);
        const session =
          'INSERT INTO sessions (session_key, agent_id, tenant_id, kind, created_at, updated_at, owner_id) VALUES ($1, $2, $3, $4, 1, 1, $5)';
        await pool.query(session, ['tenant-a:alice:chat', 'agent-1', 'tenant-a', 'dm', 'tok-a']);
        await pool.query(session, ['tenant-a:old:chat', 'agent-1', 'tenant-a', 'dm', null]);
        const entry = `INSERT INTO memory_entries (id, tenant_id, agent_id, content, memory_type, trust_level, source_session_key, created_at)
        VALUES ($1, 'tenant-a', 'agent-1', $2, 'fact', 'trusted', $3, 1)`;
        await pool.query(entry, ['mine', 'the lighthouse keeper feeds the gulls', 'tenant-a:alice:chat']);
        await pool.query(entry, ['ownerless', 'the lighthouse lamp is replaced in may', 'tenant-a:old:chat']);
        await pool.query(entry, ['operator', 'the lighthouse opens at dawn', null]);

        expect(await migratePostgres(pool)).toContain(7);
        const owners = await pool.query<{ id: string; owner_id: string | null }>(
          'SELECT id, owner_id FROM memory_entries ORDER BY id',
        );
        expect(owners.rows).toEqual([
          { id: 'mine', owner_id: 'tok-a' },
          { id: 'operator', owner_id: null },
          { id: 'ownerless', owner_id: null },
        ]);
        const port = createPostgresMemoryPort(pool);
        const own = { tenantId: 'tenant-a', agentId: 'agent-1', readableBy: { ownerId: 'tok-a', tenantIds: [] } };
        expect((await port.searchLexical('lighthouse', own, 10)).map((hit) => hit.id)).toEqual(['mine']);
        expect(
          (await port.searchLexical('lighthouse', { tenantId: 'tenant-a' }, 10)).map((hit) => hit.id).sort(),
        ).toEqual(['mine', 'operator', 'ownerless']);
        await port.insert(
          memoryEntry('later', { ownerId: 'tok-a', content: 'the lighthouse got a new coat of paint' }),
        );
        expect((await port.searchLexical('lighthouse', own, 10)).map((hit) => hit.id).sort()).toEqual([
          'later',
          'mine',
        ]);
      } finally {
        await pool.end();
        await database.drop();
      }
    });
  },
);
