// A turn row's steps read in JS (one JSON.parse per turn, no per-step SQL rows) and merged with the records kept
// outside any turn's row, in the read order of the EvidencePort: turns by start, each turn's steps in order, a loose
// record by its own time ahead of the steps of a turn started at that same time.
import type { TrajectoryRecord } from '../ports/evidence.js';

/** A `turns` row as the record reads select it. */
export interface TurnStepsRow {
  sessionKey: string;
  traceId: string;
  agentId: string;
  startedAt: number | string;
  steps: string;
}

/** A `loose_records` row with the agent of its turn (null when it has no turn row). */
export interface LooseRow {
  sessionKey: string;
  traceId: string;
  agentId: string | null;
  ts: number | string;
  kind: string;
  data: string;
}

/** A record in read order, with the agent of its turn. */
export interface ReadRecord extends TrajectoryRecord {
  agentId: string | null;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A parsed data value as an object (malformed or non-object data reads as an empty one); JSON.parse made it, so it is
 * a fresh plain object already. */
const dataObject = (value: unknown): Record<string, unknown> => (isObject(value) ? value : {});

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A turn's steps of `kinds` (all when absent), in order. */
export function stepsOf(turn: TurnStepsRow, kinds?: ReadonlySet<string>): ReadRecord[] {
  const steps = parsed(turn.steps);
  if (!Array.isArray(steps)) return [];
  const records: ReadRecord[] = [];
  for (const step of steps as unknown[]) {
    if (!Array.isArray(step)) continue;
    const [kind, ts, data] = step as unknown[];
    if (typeof kind !== 'string' || (kinds !== undefined && !kinds.has(kind))) continue;
    records.push({
      sessionKey: turn.sessionKey,
      traceId: turn.traceId,
      agentId: turn.agentId,
      kind,
      ts: Number(ts),
      data: dataObject(data),
    });
  }
  return records;
}

export const looseRecord = (row: LooseRow): ReadRecord => ({
  sessionKey: row.sessionKey,
  traceId: row.traceId,
  agentId: row.agentId,
  kind: row.kind,
  ts: Number(row.ts),
  data: dataObject(parsed(row.data)),
});

/**
 * Turns (oldest first) and loose records (by time, then append order) merged in read order: a loose record goes ahead
 * of a turn started at or after its time. `keep` decides how many records are kept; every one is counted.
 */
export class AscendingMerge {
  readonly records: ReadRecord[] = [];
  count = 0;
  #next = 0;

  constructor(
    private readonly loose: readonly LooseRow[],
    private readonly keep: number,
    private readonly kinds?: ReadonlySet<string>,
  ) {}

  #push(record: ReadRecord): void {
    this.count += 1;
    if (this.records.length < this.keep) this.records.push(record);
  }

  #looseUntil(ts: number): void {
    for (let row = this.loose[this.#next]; row !== undefined && Number(row.ts) <= ts; row = this.loose[this.#next]) {
      this.#push(looseRecord(row));
      this.#next += 1;
    }
  }

  turn(turn: TurnStepsRow): void {
    this.#looseUntil(Number(turn.startedAt));
    for (const record of stepsOf(turn, this.kinds)) this.#push(record);
  }

  end(): this {
    this.#looseUntil(Infinity);
    return this;
  }
}

/**
 * The newest `newest` records, newest first, of turns given newest first and loose records given newest first (time,
 * then append order, descending): a turn's steps go ahead of a loose record whose time is at or before its start.
 */
export function newestMerged(
  turns: readonly TurnStepsRow[],
  loose: readonly LooseRow[],
  newest: number,
  kinds?: ReadonlySet<string>,
): ReadRecord[] {
  const records: ReadRecord[] = [];
  let next = 0;
  const looseAfter = (ts: number) => {
    for (let row = loose[next]; row !== undefined && Number(row.ts) > ts; row = loose[next]) {
      records.push(looseRecord(row));
      next += 1;
    }
  };
  for (const turn of turns) {
    if (records.length >= newest) break;
    looseAfter(Number(turn.startedAt));
    records.push(...stepsOf(turn, kinds).reverse());
  }
  looseAfter(-Infinity);
  return records.slice(0, newest);
}
