// Memory entries on PostgreSQL: insert (with the observation's links and the vector in one transaction) and a vector set.
import { GatewayError } from '../../errors.js';
import type { EmbeddingVector, MemoryEntry, NewMemoryEntry } from '../index.js';
import { insertedEntry, MEMORY_INSERT_COLUMNS, memoryInsertValues } from '../shared/index.js';
import { transaction, type PgPool, type Queryable } from './pool.js';

const invalidDerivedFrom = (message: string) => new GatewayError('invalid_params', message, { param: 'derivedFrom' });

/** The Euclidean norm of a vector, kept beside it so a cosine needs only the dot product. */
function normOf(values: Float32Array): number {
  let sum = 0;
  for (const value of values) sum += value * value;
  return Math.sqrt(sum);
}

/** Writes (or replaces) the entry's vector: one per entry, so a vector of another model or dimension is dropped. */
export async function putVector(db: Queryable, seq: number, vector: EmbeddingVector): Promise<void> {
  await db.query(
    `INSERT INTO memory_vectors (entry_seq, model, dimensions, norm, vector) VALUES ($1, $2, $3, $4, $5::real[])
     ON CONFLICT (entry_seq) DO UPDATE SET model = excluded.model, dimensions = excluded.dimensions, norm = excluded.norm, vector = excluded.vector`,
    [seq, vector.model, vector.values.length, normOf(vector.values), Array.from(vector.values)],
  );
}

export function createMemoryEntries(pool: PgPool) {
  return {
    insert: (entry: NewMemoryEntry, vector?: EmbeddingVector): Promise<MemoryEntry> =>
      transaction(pool, async (client) => {
        if (entry.memoryType !== 'observation' && entry.derivedFrom.length > 0)
          throw invalidDerivedFrom('Only observations are derived from other entries');
        const inserted = await client.query<{ seq: number }>(
          `INSERT INTO memory_entries (${MEMORY_INSERT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING seq`,
          memoryInsertValues(entry),
        );
        const seq = inserted.rows[0]?.seq;
        if (seq === undefined) throw new Error('memory_entries insert returned no seq');
        const derivedFrom = [...new Set(entry.derivedFrom)];
        for (const [position, sourceId] of derivedFrom.entries()) {
          // A source of another tenant, agent or owner would let one scope's observation reveal another's entries.
          const source = await client.query<{ seq: number }>(
            'SELECT seq FROM memory_entries WHERE id = $1 AND tenant_id = $2 AND agent_id = $3 AND owner_id IS NOT DISTINCT FROM $4',
            [sourceId, entry.tenantId, entry.agentId, entry.ownerId ?? null],
          );
          const sourceSeq = source.rows[0]?.seq;
          if (sourceSeq === undefined)
            throw invalidDerivedFrom(`No entry '${sourceId}' of the same tenant, agent and owner to derive from`);
          await client.query('INSERT INTO memory_links (observation_seq, source_seq, position) VALUES ($1, $2, $3)', [
            seq,
            sourceSeq,
            position,
          ]);
        }
        if (vector !== undefined) await putVector(client, seq, vector);
        return insertedEntry(entry, derivedFrom);
      }),
    async setVector(id: string, vector: EmbeddingVector): Promise<void> {
      await transaction(pool, async (client) => {
        const seq = (
          await client.query<{ seq: number }>('SELECT seq FROM memory_entries WHERE id = $1 FOR UPDATE', [id])
        ).rows[0]?.seq;
        // The entry was deleted while it was being embedded: nothing to attach the vector to.
        if (seq !== undefined) await putVector(client, seq, vector);
      });
    },
  };
}
