// Parses REST bodies and query strings with strict zod schemas; a failure is one invalid_params naming the field.
import type { z } from 'zod';
import { dottedPath, firstIssue, GatewayError } from '../../errors.js';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = firstIssue(parsed.error.issues);
  if (issue === undefined) throw new GatewayError('invalid_params', 'Invalid request');
  const param = dottedPath(issue.path);
  if (issue.problem === 'unknown_key')
    throw new GatewayError('invalid_params', `Invalid params: unknown field '${param}'`, { param });
  if (param === '') throw new GatewayError('invalid_params', 'Invalid params: expected a JSON object');
  throw new GatewayError('invalid_params', `Invalid params: '${param}' ${issue.reason}`, { param });
}
