// Renders the JSON-RPC API reference (docs/api.md) from the registry: one source for dispatch, rpc.discover and docs.
import type { MethodRegistry, RegisteredMethod, ResolvedMethodPolicy } from './types.js';
import { paramsJsonSchema } from './openrpc.js';

/** `audit`, `maxParamsBytes 1048576`, `requiresApproval`, or `–` when none applies. */
function describePolicy(policy: ResolvedMethodPolicy): string {
  const parts: string[] = [];
  if (policy.audit) parts.push(policy.readOnly ? 'audit (reads)' : 'audit');
  if (policy.maxParamsBytes !== undefined) parts.push(`maxParamsBytes ${policy.maxParamsBytes}`);
  if (policy.requiresApproval) parts.push('requiresApproval');
  return parts.length === 0 ? '–' : parts.join(', ');
}

/** GitHub's heading anchor: lower case, dots and other punctuation dropped. */
const anchorOf = (name: string): string => name.toLowerCase().replace(/[^a-z0-9_-]/g, '');

const tableCell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function methodSection(method: RegisteredMethod): string {
  const schema = JSON.stringify(paramsJsonSchema(method.params), null, 2);
  return [
    `### ${method.name}`,
    '',
    method.summary,
    '',
    `- Scope: \`${method.scope}\``,
    `- Policy: ${describePolicy(method.policy)}`,
    '',
    'Params (JSON Schema):',
    '',
    '```json',
    schema,
    '```',
    '',
  ].join('\n');
}

export function renderApiReference(registry: MethodRegistry): string {
  const methods = registry.list();
  const header = [
    '# JSON-RPC API reference',
    '',
    '<!-- Generated from the method registry by `npm run docs:api`; edit the method declarations, not this file. -->',
    '',
    'Every method is called over `/ws` or `POST /rpc` as a JSON-RPC 2.0 request with named params.',
    'Scope is the token scope a caller needs (`admin` methods also accept a `*` token).',
    'Policy: `audit` writes an audit row for every call (calls refused for scope are always audited);',
    '`audit (reads)` marks a method that changes nothing: its calls are audited only with `audit.reads: true`;',
    '`maxParamsBytes` is the largest params object accepted, in bytes of JSON;',
    "`requiresApproval` marks calls that need an operator's approval. The same data is served by `rpc.discover`.",
    '',
    '| Method | Scope | Policy | Summary |',
    '| --- | --- | --- | --- |',
    ...methods.map(
      (method) =>
        `| [\`${method.name}\`](#${anchorOf(method.name)}) | ${method.scope} | ${describePolicy(method.policy)} | ${tableCell(method.summary)} |`,
    ),
    '',
    '## Methods',
    '',
  ];
  return `${[...header, ...methods.map(methodSection)].join('\n').trimEnd()}\n`;
}
