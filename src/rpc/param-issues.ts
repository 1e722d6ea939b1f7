// Turns zod issues on JSON-RPC params into one message that names each offending param.
import type { z } from 'zod';

export interface ParamIssueSummary {
  text: string;
  /** Dotted path of the first offending param, e.g. `sessionKey.tenantId`. */
  param?: string;
}

export function formatParamIssues(issues: readonly z.core.$ZodIssue[]): ParamIssueSummary {
  const parts: string[] = [];
  let param: string | undefined;
  for (const issue of issues) {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const name = path === '' ? key : `${path}.${key}`;
        param ??= name;
        parts.push(`unknown param '${name}'`);
      }
      continue;
    }
    const name = path === '' ? 'params' : path;
    param ??= name;
    parts.push(`'${name}' ${issue.message.replace(/^Invalid input: /, '')}`);
  }
  return { text: parts.join('; '), param };
}
