// Parses /v1 request bodies with strict zod schemas; a failure becomes one 400 naming the offending param.
import type { z } from 'zod';
import { GatewayError } from '../../errors.js';

/** `messages[0].content`: the parameter path the way OpenAI's errors print it. */
export function paramPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text === '' ? String(part) : `.${String(part)}`;
  }
  return text;
}

function describeIssue(issue: z.core.$ZodIssue): GatewayError {
  if (issue.code === 'unrecognized_keys') {
    const param = paramPath([...issue.path, issue.keys[0] ?? '']);
    // OpenAI's wording, so clients that match on it keep working.
    return new GatewayError('invalid_params', `Unrecognized request argument supplied: ${param}`, { param });
  }
  if (issue.path.length === 0) {
    return new GatewayError('invalid_request', 'The request body must be a JSON object');
  }
  const param = paramPath(issue.path);
  if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) {
    return new GatewayError('invalid_params', `Missing required parameter: '${param}'`, { param });
  }
  const reason = issue.message.replace(/^Invalid input: /, '');
  return new GatewayError('invalid_params', `Invalid value for '${param}': ${reason}`, { param });
}

/** Returns the parsed body, or throws `invalid_params` for the first problem (unknown fields first). */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const first = issues.find((issue) => issue.code === 'unrecognized_keys') ?? issues[0];
  if (first === undefined) throw new GatewayError('invalid_request', 'Invalid request body');
  throw describeIssue(first);
}
