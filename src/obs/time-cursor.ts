// Opaque page cursors over rows ordered by a time then an id (both descending): the last row's pair, base64url JSON.
import { z } from 'zod';
import { invalidParams } from '../errors.js';

export interface TimeCursor {
  ts: number;
  id: string;
}

const cursorSchema = z.strictObject({ ts: z.number().int(), id: z.string().min(1).max(512) });

export const encodeTimeCursor = (cursor: TimeCursor): string =>
  Buffer.from(JSON.stringify([cursor.ts, cursor.id])).toString('base64url');

/** A cursor this module did not make is the caller's error, named by `param`. */
export function decodeTimeCursor(text: string, param = 'cursor'): TimeCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalidParams(`${param}: not a cursor this method returned`, param);
  }
  const pair = Array.isArray(parsed) && parsed.length === 2 ? { ts: parsed[0], id: parsed[1] } : undefined;
  const checked = cursorSchema.safeParse(pair);
  if (!checked.success) throw invalidParams(`${param}: not a cursor this method returned`, param);
  return checked.data;
}

/** The next page's cursor when the page is full (a short page is the last), else null. */
export function nextTimeCursor<Row>(
  rows: readonly Row[],
  limit: number,
  pick: (row: Row) => TimeCursor,
): string | null {
  const last = rows.at(-1);
  return rows.length < limit || last === undefined ? null : encodeTimeCursor(pick(last));
}
