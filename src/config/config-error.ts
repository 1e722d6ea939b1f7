// The error of a config file (or secrets file) that cannot be used; the message names the file and every offending key.
import { GatewayError } from '../errors.js';

export class ConfigError extends Error {
  constructor(
    message: string,
    readonly problems: string[] = [],
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** A ConfigError from validating a change, as the invalid_params error the caller gets (naming the first key). */
export function asInvalidParams(error: unknown, prefix = 'Invalid config'): unknown {
  if (!(error instanceof ConfigError)) return error;
  const param = error.problems[0]?.split(': ')[0];
  const text = error.problems.length > 0 ? error.problems.join('; ') : error.message;
  return new GatewayError('invalid_params', `${prefix}: ${text}`, param === undefined ? {} : { param });
}

/** What a refused document gets wrong, one entry per key (or the error's message when it names none). */
export const problemsOf = (error: ConfigError): string[] =>
  error.problems.length > 0 ? error.problems : [error.message];
