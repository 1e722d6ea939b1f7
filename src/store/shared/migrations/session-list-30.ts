// Shared migration 30: each session's channel (the key's third part, a generated column, so every writer and every
// existing row has it) and how its last turn ended, so session.list filters and counts by them in SQL.
import { sql, type Compilable, type Kysely } from 'kysely';
import type { Dialect } from '../store-db.js';

/** The third colon-separated part of session_key, NULL when it has fewer than three (SQLite has no split_part). */
function sqliteChannelOfKey(): string {
  const rest1 = `substr(session_key, instr(session_key, ':') + 1)`;
  const rest2 = `substr(${rest1}, instr(${rest1}, ':') + 1)`;
  return (
    `CASE WHEN instr(session_key, ':') = 0 OR instr(${rest1}, ':') = 0 THEN NULL ` +
    `WHEN instr(${rest2}, ':') = 0 THEN ${rest2} ELSE substr(${rest2}, 1, instr(${rest2}, ':') - 1) END`
  );
}

export const SESSION_LIST_MIGRATION = {
  version: 30,
  name: 'session_list',
  up(db: Kysely<unknown>, dialect: Dialect): readonly Compilable[] {
    const channel = dialect === 'sqlite' ? sqliteChannelOfKey() : `NULLIF(split_part(session_key, ':', 3), '')`;
    // SQLite adds only VIRTUAL generated columns to a table (computed on read, indexable); PostgreSQL only STORED ones.
    const generated = sql.raw(`NULLIF(${channel}, '')`);
    return [
      db.schema
        .alterTable('sessions')
        .addColumn('channel_id', 'text', (column) =>
          dialect === 'sqlite' ? column.generatedAlwaysAs(generated) : column.generatedAlwaysAs(generated).stored(),
        ),
      db.schema.alterTable('sessions').addColumn('last_outcome', 'text'),
      db.schema.createIndex('sessions_by_channel').on('sessions').columns(['channel_id', 'updated_at']),
    ];
  },
};
