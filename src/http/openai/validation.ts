// Parses /v1 request bodies with strict zod schemas; a failure becomes one 400 naming the offending param.
import type { z } from 'zod';
import { bracketPath, firstIssue, GatewayError, type FieldIssue } from '../../errors.js';

/** `messages[0].content`: the parameter path the way OpenAI's errors print it. */
export const paramPath = bracketPath;

function describeIssue(issue: FieldIssue): GatewayError {
  const param = paramPath(issue.path);
  // OpenAI's wording, so clients that match on it keep working.
  if (issue.problem === 'unknown_key')
    return new GatewayError('invalid_params', `Unrecognized request argument supplied: ${param}`, { param });
  if (issue.path.length === 0) return new GatewayError('invalid_request', 'The request body must be a JSON object');
  if (issue.problem === 'missing')
    return new GatewayError('invalid_params', `Missing required parameter: '${param}'`, { param });
  return new GatewayError('invalid_params', `Invalid value for '${param}': ${issue.reason}`, { param });
}

/** Returns the parsed body, or throws `invalid_params` for the first problem (unknown fields first). */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const first = firstIssue(parsed.error.issues);
  if (first === undefined) throw new GatewayError('invalid_request', 'Invalid request body');
  throw describeIssue(first);
}
