// Scrubs evidence before it is stored or shown: content-free counts, booleans and short id-like strings only.
import { createHash } from 'node:crypto';
import { CREDENTIAL_KEY_PATTERN } from '../config/index.js';

/** Keys whose values may carry content or credentials; they are dropped whatever their value. */
const CONTENT_KEY = /^(content|text|message|messages|body|prompt|input|output|result|response|query|args|arguments)$/i;
/** An id, enum or path-like value; anything else is replaced by its digest. */
const ID_LIKE = /^[\w.:@/+-]{1,128}$/;
const MAX_DEPTH = 3;
const MAX_KEYS = 32;
const MAX_ITEMS = 20;

export type Scrubbed = string | number | boolean | null | Scrubbed[] | { [key: string]: Scrubbed };

export function digestOf(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
}

function scrubValue(value: unknown, depth: number): Scrubbed | undefined {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string') return ID_LIKE.test(value) ? value : digestOf(value);
  if (depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    return value
      .slice(0, MAX_ITEMS)
      .map((item) => scrubValue(item, depth + 1))
      .filter((item): item is Scrubbed => item !== undefined);
  }
  if (typeof value === 'object') return scrubObject(value as Record<string, unknown>, depth + 1);
  return undefined;
}

/** Keeps at most 32 keys (sorted), 20 items per array and 3 levels; drops sensitive keys; digests free text. */
export function scrubObject(value: Record<string, unknown>, depth = 0): { [key: string]: Scrubbed } {
  const entries: [string, Scrubbed][] = [];
  for (const key of Object.keys(value).sort().slice(0, MAX_KEYS)) {
    if (CONTENT_KEY.test(key) || CREDENTIAL_KEY_PATTERN.test(key)) continue;
    const scrubbed = scrubValue(value[key], depth);
    if (scrubbed !== undefined) entries.push([key, scrubbed]);
  }
  return Object.fromEntries(entries);
}
