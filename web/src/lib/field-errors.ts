// Turns a failed call into per-field messages: the server names the offending param (error.data.param).
import { errorText } from './format';
import { RpcError } from './rpc';

export interface FieldErrors {
  /** Message per form field name. */
  fields: Record<string, string>;
  /** A message that belongs to no field of the form. */
  general: string | undefined;
}

/**
 * `param` may be the field itself (`name`) or a config path ending in it (`agents.helper.provider`, `budget.maxTokensPerTurn`):
 * the longest field name that ends the path wins.
 */
export function fieldErrorsOf(error: unknown, fieldNames: readonly string[]): FieldErrors {
  if (error === undefined) return { fields: {}, general: undefined };
  const param = error instanceof RpcError ? error.param : undefined;
  if (param !== undefined) {
    const match = [...fieldNames]
      .sort((a, b) => b.length - a.length)
      .find(
        (name) =>
          param === name || param.endsWith(`.${name}`) || param.startsWith(`${name}.`) || param.startsWith(`${name}[`),
      );
    if (match !== undefined)
      return { fields: { [match]: errorText(error).replace(/^Invalid params: /, '') }, general: undefined };
  }
  return { fields: {}, general: errorText(error) };
}
