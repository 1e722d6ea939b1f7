// The JSON-RPC method registry: each method declared once (name, scope, strict params schema, policy, handler).
import { z } from 'zod';
import type { MethodDefinition, MethodRegistry, RegisteredMethod, ResolvedMethodPolicy } from './types.js';

/** Keeps the params type of a declaration so its handler sees parsed, typed input. */
export function defineMethod<const Name extends string, Params extends z.ZodType, Result>(
  definition: MethodDefinition<Params, Result, Name>,
): MethodDefinition<Params, Result, Name> {
  return definition;
}

/** Declared for methods that take no params: `{}` or absent, nothing else. */
export const noParams = z.strictObject({});

const METHOD_NAME = /^[a-z][A-Za-z0-9_]*(\.[a-z][A-Za-z0-9_]*)+$/;

/**
 * Last name parts that only read: `x.get`, `x.list`, `x.status` … (and `x.getSomething`, `x.list_something`). A method
 * named so that does change something declares `readOnly: false`; a read named otherwise declares `readOnly: true`.
 */
export const READ_VERBS: readonly string[] = [
  'get',
  'list',
  'read',
  'status',
  'stats',
  'search',
  'query',
  'history',
  'diff',
  'schema',
  'pending',
  'facets',
  'discover',
  'ping',
];

function isReadName(name: string): boolean {
  const verb = name.slice(name.lastIndexOf('.') + 1);
  return READ_VERBS.some((read) => verb === read || new RegExp(`^${read}(?:[A-Z_])`).test(verb));
}

function resolvePolicy(definition: MethodDefinition): ResolvedMethodPolicy {
  const {
    audit = definition.scope === 'admin',
    maxParamsBytes,
    requiresApproval = false,
    readOnly = isReadName(definition.name),
  } = definition.policy ?? {};
  if (maxParamsBytes !== undefined && !(Number.isSafeInteger(maxParamsBytes) && maxParamsBytes > 0)) {
    throw new TypeError(`JSON-RPC method '${definition.name}' has an invalid policy.maxParamsBytes: ${maxParamsBytes}`);
  }
  return maxParamsBytes === undefined
    ? { audit, readOnly, requiresApproval }
    : { audit, readOnly, maxParamsBytes, requiresApproval };
}

/** Fails at startup, naming the method, on a duplicate, a malformed name, a missing scope or a bad policy. */
export function createRegistry(definitions: readonly MethodDefinition[]): MethodRegistry {
  const byName = new Map<string, RegisteredMethod>();
  for (const definition of definitions) {
    if (!METHOD_NAME.test(definition.name)) {
      throw new TypeError(`JSON-RPC method '${definition.name}' must be named namespace.method`);
    }
    if (definition.scope !== 'rpc' && definition.scope !== 'admin') {
      throw new TypeError(`JSON-RPC method '${definition.name}' has no valid scope`);
    }
    if (byName.has(definition.name)) {
      throw new TypeError(`JSON-RPC method '${definition.name}' is declared twice`);
    }
    byName.set(definition.name, { ...definition, policy: resolvePolicy(definition) });
  }
  const sorted = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return {
    get: (name) => byName.get(name),
    list: () => sorted,
  };
}
