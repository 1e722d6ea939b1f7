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

export interface LexicalCompactionOptions {
  afterWrites?: number;
  afterShare?: number;
  /** Runs the next step; the default waits for the event loop's next turn (setImmediate, unreferenced). */
  schedule?: (step: () => void) => void;
}

export interface LexicalCompaction {
  /** Entries stored or deleted since the last compaction began. */
  readonly writes: number;
  /** Whether a compaction is under way. */
  readonly running: boolean;
}

const nextTurn = (step: () => void) => {
  setImmediate(step).unref();
};

/**
 * Counts writes, and the store's entries, with temporary triggers (this connection only), so every path that stores or
 * deletes an entry counts. A step that fails (the file busy or closed) ends the compaction: the next write past the
 * threshold starts another.
 */
export function createLexicalCompaction(
  db: SqliteDatabase,
  { afterWrites = COMPACT_AFTER_WRITES, afterShare = COMPACT_AFTER_SHARE, schedule = nextTurn }: LexicalCompactionOptions = {},
): LexicalCompaction {
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
    if (running) schedule(step);
  }

  db.function('memory_fts_written', { deterministic: false, varargs: false }, (by: unknown) => {
    entries += by === 1 ? 1 : -1;
    writes += 1;
    if (!running && writes >= Math.max(afterWrites, entries * afterShare)) {
      running = true;
      writes = 0;
      schedule(step);
    }
    return null;
  });
  db.exec(
    `CREATE TEMP TRIGGER IF NOT EXISTS memory_fts_written_ai AFTER INSERT ON main.memory_entries BEGIN SELECT memory_fts_written(1); END;
     CREATE TEMP TRIGGER IF NOT EXISTS memory_fts_written_ad AFTER DELETE ON main.memory_entries BEGIN SELECT memory_fts_written(-1); END;`,
  );

  return {
    get writes() {
      return writes;
    },
    get running() {
      return running;
    },
  };
}
