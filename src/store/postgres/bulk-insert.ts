// Many rows in one INSERT: one array parameter per column, unnested in order, so a batch is one round trip.
import type { Queryable } from './pool.js';

export type ColumnType = 'text' | 'bigint' | 'integer' | 'double precision' | 'boolean';
export type CellValue = string | number | boolean | null;

/**
 * Inserts `rows` (each in `columns` order) into `table`; `columns` and `table` are trusted names written by an
 * adapter, every value is bound. Rows keep their order, so serial ids follow it.
 */
export async function insertRows(
  db: Queryable,
  table: string,
  columns: readonly (readonly [name: string, type: ColumnType])[],
  rows: readonly (readonly CellValue[])[],
): Promise<void> {
  if (rows.length === 0) return;
  const arrays = columns.map((_, index) => rows.map((row) => row[index] ?? null));
  const names = columns.map(([name]) => name).join(', ');
  const unnest = columns.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ');
  await db.query(
    `INSERT INTO ${table} (${names}) SELECT ${columns.map((_, index) => `c${index}`).join(', ')}
     FROM unnest(${unnest}) WITH ORDINALITY AS u (${columns.map((_, index) => `c${index}`).join(', ')}, position) ORDER BY position`,
    arrays,
  );
}
