// Words zod issues on JSON-RPC params as one message that names each offending param.
import type { z } from 'zod';
import { dottedPath, readIssues } from '../errors.js';

export interface ParamIssueSummary {
  text: string;
  /** Dotted path of the first offending param, e.g. `sessionKey.tenantId`. */
  param?: string;
}

export function formatParamIssues(issues: readonly z.core.$ZodIssue[]): ParamIssueSummary {
  const parts: string[] = [];
  let param: string | undefined;
  for (const issue of readIssues(issues)) {
    const name = issue.path.length === 0 ? 'params' : dottedPath(issue.path);
    param ??= name;
    parts.push(issue.problem === 'unknown_key' ? `unknown param '${name}'` : `'${name}' ${issue.reason}`);
  }
  return { text: parts.join('; '), param };
}
