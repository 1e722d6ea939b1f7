// Shared migration 27: a heartbeat job's chat target (channel, chat, thread as JSON) on its job row; null for other jobs.
import type { Compilable, Kysely } from 'kysely';

export const HEARTBEAT_JOBS_MIGRATION = {
  version: 27,
  name: 'heartbeat_jobs',
  up(db: Kysely<unknown>): readonly Compilable[] {
    return [db.schema.alterTable('jobs').addColumn('heartbeat', 'text')];
  },
};
