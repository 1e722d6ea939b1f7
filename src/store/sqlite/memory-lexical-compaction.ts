// Keeps the lexical lane's FTS5 index in one segment: every write transaction adds a small segment, and a query looks
// each of its words up in every segment, so after enough writes the index is merged back in the background.
import type { SqliteDatabase } from './database.js';

/** Entries stored or deleted that start a compaction: at least this many… */
export const COMPACT_AFTER_WRITES = 1_000;
/**
 * …and at least this share of the store's entries: a compaction rewrites the whole index, so its cost is spread over
 * as many writes as the store is large (100k entries: about 160 ms of steps per 12,500 writes).
 */
export const COMPACT_AFTER_SHARE = 0.125;
/** FTS5 pages merged per step: a step holds the event loop for a few milliseconds. */
export const MERGE_PAGES_PER_STEP = 32;

/**
 * Counts writes, and the store's entries, with temporary triggers (this connection only), so every path that stores or
 * deletes an entry counts. Each step runs at a later turn of the event loop; a step that fails (the file busy or
 * closed) ends the compaction, and the next write past the threshold starts another.
 */
export function startLexicalCompaction(db: SqliteDatabase): void {
  // A negative page count merges towards a single segment; the changes counter moves by one (the command itself)
  // once nothing is left to merge.
  const merge = db.prepare<[number]>("INSERT INTO memory_fts (memory_fts, rank) VALUES ('merge', ?)");
  const totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck();
  let entries = db.prepare<[], number>('SELECT COUNT(*) FROM memory_entries').pluck().get() ?? 0;
  let writes = 0;
  let running = false;

  function step(): void {
    if (!db.open) {
      running = false;
      return;
    }
    try {
      const before = totalChanges.get() ?? 0;
      merge.run(-MERGE_PAGES_PER_STEP);
      running = (totalChanges.get() ?? 0) - before > 1;
    } catch {
      running = false;
    }
    if (running) setImmediate(step).unref();
  }

  db.function('memory_fts_written', { deterministic: false, varargs: false }, (by: unknown) => {
    entries += by === 1 ? 1 : -1;
    writes += 1;
    if (!running && writes >= Math.max(COMPACT_AFTER_WRITES, entries * COMPACT_AFTER_SHARE)) {
      running = true;
      writes = 0;
      setImmediate(step).unref();
    }
    return null;
  });
  db.exec(
    `CREATE TEMP TRIGGER IF NOT EXISTS memory_fts_written_ai AFTER INSERT ON main.memory_entries BEGIN SELECT memory_fts_written(1); END;
     CREATE TEMP TRIGGER IF NOT EXISTS memory_fts_written_ad AFTER DELETE ON main.memory_entries BEGIN SELECT memory_fts_written(-1); END;`,
  );
}
