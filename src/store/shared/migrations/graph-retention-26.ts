// Shared migration 26: graph runs by their last update, so the retention sweep finds the oldest finished ones through an
// index (obs.retentionDays).
import type { Compilable, Kysely } from 'kysely';

export const GRAPH_RETENTION_MIGRATION = {
  version: 26,
  name: 'graph_retention',
  up(db: Kysely<unknown>): readonly Compilable[] {
    return [db.schema.createIndex('graph_runs_by_update').on('graph_runs').columns(['updated_at', 'run_id'])];
  },
};
