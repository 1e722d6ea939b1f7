// The PostgreSQL MemoryPort: the shared conformance cases (exact cosine lane) against a fresh database on a throwaway server.
import { createPostgresMemoryPort, type PgPool } from '../../../src/store/postgres/index.js';
import { memoryPortCases } from '../memory.cases.js';
import { postgresCases } from './fixture.js';

postgresCases<PgPool>('MemoryPort', (backend, open) =>
  memoryPortCases(`${backend}, exact cosine`, async (options) => {
    const fixture = await open();
    const port = createPostgresMemoryPort(fixture.port, {
      ...(options?.embeddingCacheMaxEntries === undefined ? {} : { embeddingCacheMaxEntries: options.embeddingCacheMaxEntries, embeddingCacheEvictionBatch: 1 }),
      ...(options?.now === undefined ? {} : { now: options.now }),
    });
    return { port, close: fixture.close };
  }), (pool) => pool);
