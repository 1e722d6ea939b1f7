// The JSON-RPC method registry: each method declared once (name, scope, strict params schema, handler).
import { z } from 'zod';
import type { Logger } from 'pino';
import type { Caller, Transport } from '../server/scopes.js';

export type MethodScope = 'rpc' | 'admin';

export interface MethodContext {
  caller: Caller;
  transport: Transport;
  log: Logger;
  traceId: string;
  /** Aborted when the connection closes or the gateway shuts down. */
  signal: AbortSignal;
}

export interface MethodDefinition<Params extends z.ZodType = z.ZodType> {
  name: string;
  scope: MethodScope;
  summary: string;
  params: Params;
  handler: (params: z.infer<Params>, ctx: MethodContext) => unknown;
}

/** Keeps the params type of a declaration so its handler sees parsed, typed input. */
export function defineMethod<Params extends z.ZodType>(definition: MethodDefinition<Params>): MethodDefinition<Params> {
  return definition;
}

/** Declared for methods that take no params: `{}` or absent, nothing else. */
export const noParams = z.strictObject({});

const METHOD_NAME = /^[a-z][A-Za-z0-9_]*(\.[a-z][A-Za-z0-9_]*)+$/;

export interface MethodRegistry {
  get(name: string): MethodDefinition | undefined;
  list(): readonly MethodDefinition[];
}

/** Fails at startup, naming the method, on a duplicate, a malformed name or a missing scope. */
export function createRegistry(definitions: readonly MethodDefinition[]): MethodRegistry {
  const byName = new Map<string, MethodDefinition>();
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
    byName.set(definition.name, definition);
  }
  const sorted = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return {
    get: (name) => byName.get(name),
    list: () => sorted,
  };
}
