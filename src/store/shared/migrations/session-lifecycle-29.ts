// Shared migration 29: when a session expired (idle past sessions.idleTtlMs) and when a finished sub-agent session was
// archived (runs.archiveAfterMs); null while neither happened. Indexed for the sweep that sets and prunes them.
import type { Compilable, Kysely } from 'kysely';

export const SESSION_LIFECYCLE_MIGRATION = {
  version: 29,
  name: 'session_lifecycle',
  up(db: Kysely<unknown>): readonly Compilable[] {
    return [
      db.schema.alterTable('sessions').addColumn('expired_at', 'bigint'),
      db.schema.alterTable('sessions').addColumn('archived_at', 'bigint'),
      // The retention of expired transcripts reads the oldest expiries first.
      db.schema.createIndex('sessions_by_expired').on('sessions').column('expired_at'),
      db.schema.createIndex('sessions_by_archived').on('sessions').column('archived_at'),
    ];
  },
};
