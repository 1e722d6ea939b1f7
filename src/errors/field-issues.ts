// Reads zod issues into the field problems every surface phrases (unknown key, missing, invalid) and their paths.
import type { z } from 'zod';

/** One problem in a zod result, in the terms every surface phrases: an unknown key, a missing value, or a bad one. */
export interface FieldIssue {
  problem: 'unknown_key' | 'missing' | 'invalid';
  /** Where it is; for an unknown key, the path of the key itself. */
  path: readonly PropertyKey[];
  /** zod's message without its "Invalid input: " lead-in. */
  reason: string;
  /** zod's message as it is. */
  message: string;
}

/**
 * The one reader of zod issues for every surface (JSON-RPC params, REST, /v1, webhook, config): an
 * `unrecognized_keys` issue becomes one FieldIssue per key. Surfaces only choose the wording.
 */
export function readIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  const read: FieldIssue[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        read.push({
          problem: 'unknown_key',
          path: [...issue.path, key],
          reason: 'unknown key',
          message: issue.message,
        });
      continue;
    }
    const isMissing = issue.code === 'invalid_type' && issue.message.endsWith('received undefined');
    read.push({
      problem: isMissing ? 'missing' : 'invalid',
      path: issue.path,
      reason: issue.message.replace(/^Invalid input: /, ''),
      message: issue.message,
    });
  }
  return read;
}

/** Unknown keys first (the likeliest typo), else the first issue: for surfaces that report one problem. */
export function firstIssue(issues: readonly z.core.$ZodIssue[]): FieldIssue | undefined {
  const read = readIssues(issues);
  return read.find((issue) => issue.problem === 'unknown_key') ?? read[0];
}

/** `sessionKey.tenantId`, `messages.0.content`: the dotted form JSON-RPC and REST name params in. */
export const dottedPath = (path: readonly PropertyKey[]): string => path.map(String).join('.');

/** `messages[0].content`: the form OpenAI's errors and config problems print. */
export function bracketPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text === '' ? String(part) : `.${String(part)}`;
  }
  return text;
}
