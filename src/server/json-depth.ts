// The one nesting-depth limit for JSON at every edge (bodies, JSON-RPC messages, config documents), checked
// by an iterative walk so that a 10,000-level document cannot overflow the stack anywhere behind the edge.
import { SERVER_LIMITS } from './limits.js';

/** Levels of arrays and objects a JSON document may nest; the outermost container is level 1. */
export const MAX_JSON_DEPTH = SERVER_LIMITS.maxJsonDepth;

/**
 * Only a text longer than this can nest deeper than `maxDepth`: every level takes an opening and a closing
 * bracket. Shorter texts (most small messages) skip the walk.
 */
export function canExceedJsonDepth(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  return text.length > 2 * maxDepth;
}

/** Whether parsed JSON nests deeper than `maxDepth`; stops at the first container beyond it. */
export function exceedsJsonDepth(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const pending: { node: object; depth: number }[] = [{ node: value, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > maxDepth) return true;
    const children: unknown[] = Array.isArray(next.node) ? next.node : Object.values(next.node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) pending.push({ node: child, depth: next.depth + 1 });
    }
  }
  return false;
}
