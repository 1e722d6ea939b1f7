// Keys that user data may not use where it becomes an object key (agent ids, config documents, metadata):
// assigning them reaches Object.prototype or replaces an object's prototype, and validation skips them.
import { z } from 'zod';

export const FORBIDDEN_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_KEYS.includes(key);
}

export interface FoundKey {
  key: string;
  /** Where the key is: `['agents', 'x', 'budget', '__proto__']`, list positions as numbers. */
  segments: (string | number)[];
}

/** The first key of parsed JSON that `isRefused` refuses, found without recursion. */
export function findForbiddenKey(
  value: unknown,
  isRefused: (key: string) => boolean = isForbiddenKey,
): FoundKey | undefined {
  const pending: { node: unknown; segments: (string | number)[] }[] = [{ node: value, segments: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, segments } = next;
    if (Array.isArray(node)) {
      node.forEach((item, index) => pending.push({ node: item, segments: [...segments, index] }));
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, child] of Object.entries(node)) {
        if (isRefused(key)) return { key, segments: [...segments, key] };
        pending.push({ node: child, segments: [...segments, key] });
      }
    }
  }
  return undefined;
}

/** A record key or id taken from a client: refuses `__proto__`, `constructor` and `prototype`. */
export const safeKeySchema = z
  .string()
  .refine((key) => !isForbiddenKey(key), { error: (issue) => `the key '${String(issue.input)}' is not allowed` });
