// Parses REST bodies and query strings with strict zod schemas; a failure is one invalid_params naming the field.
import type { z } from 'zod';
import { GatewayError } from '../../errors.js';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues.find((candidate) => candidate.code === 'unrecognized_keys') ?? parsed.error.issues[0];
  if (issue === undefined) throw new GatewayError('invalid_params', 'Invalid request');
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const param = [path, issue.keys[0] ?? ''].filter((part) => part !== '').join('.');
    throw new GatewayError('invalid_params', `Invalid params: unknown field '${param}'`, { param });
  }
  if (path === '') throw new GatewayError('invalid_params', 'Invalid params: expected a JSON object');
  throw new GatewayError('invalid_params', `Invalid params: '${path}' ${issue.message.replace(/^Invalid input: /, '')}`, { param: path });
}
