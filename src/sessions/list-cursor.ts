// session.list page cursors: the last listed session's update time and key, as an opaque base64url string.
import { z } from 'zod';
import { invalidParams } from '../errors.js';
import type { SessionListCursor } from '../store/index.js';

const cursorSchema = z.tuple([z.number().int(), z.string().min(1)]);

export function encodeListCursor({ updatedAt, sessionKey }: SessionListCursor): string {
  return Buffer.from(JSON.stringify([updatedAt, sessionKey])).toString('base64url');
}

/** Throws invalid_params naming `cursor` for anything that is not a cursor this gateway issued. */
export function decodeListCursor(text: string): SessionListCursor {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalidParams('Invalid params: cursor is not a session.list cursor', 'cursor');
  }
  const parsed = cursorSchema.safeParse(value);
  if (!parsed.success) throw invalidParams('Invalid params: cursor is not a session.list cursor', 'cursor');
  return { updatedAt: parsed.data[0], sessionKey: parsed.data[1] };
}
