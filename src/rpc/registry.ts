// The JSON-RPC method registry: each method declared once (name, scope, strict params schema, policy, handler).
import { z } from 'zod';
import type { Logger } from 'pino';
import type { Caller, Transport } from '../server/index.js';

export type MethodScope = 'rpc' | 'admin';

export interface MethodContext {
  caller: Caller;
  transport: Transport;
  log: Logger;
  traceId: string;
  /** Aborted when the connection closes or the gateway shuts down. */
  signal: AbortSignal;
}

/** What the dispatcher enforces for a method besides its scope, declared beside it (DESIGN §4). */
export interface MethodPolicy {
  /** Record an audit row for every call. Default: true for admin methods, false otherwise (denied calls are always audited). */
  audit?: boolean;
  /** Largest `params` accepted, in bytes of their JSON; checked before validation. Default: none beyond the transport's frame and body limits. */
  maxParamsBytes?: number;
  /** The call needs an operator's approval before it runs (recorded and published; enforced by approvals). Default: false. */
  requiresApproval?: boolean;
}

export interface ResolvedMethodPolicy {
  audit: boolean;
  maxParamsBytes?: number;
  requiresApproval: boolean;
}

export interface MethodDefinition<
  Params extends z.ZodType = z.ZodType,
  Result = unknown,
  Name extends string = string,
> {
  name: Name;
  scope: MethodScope;
  summary: string;
  params: Params;
  policy?: MethodPolicy;
  handler: (params: z.infer<Params>, ctx: MethodContext) => Result;
}

/** A definition as the registry holds it: its policy with every default filled in. */
export interface RegisteredMethod extends MethodDefinition {
  policy: ResolvedMethodPolicy;
}

/** Keeps the params type of a declaration so its handler sees parsed, typed input. */
export function defineMethod<const Name extends string, Params extends z.ZodType, Result>(
  definition: MethodDefinition<Params, Result, Name>,
): MethodDefinition<Params, Result, Name> {
  return definition;
}

/** Declared for methods that take no params: `{}` or absent, nothing else. */
export const noParams = z.strictObject({});

const METHOD_NAME = /^[a-z][A-Za-z0-9_]*(\.[a-z][A-Za-z0-9_]*)+$/;

export interface MethodRegistry {
  get(name: string): RegisteredMethod | undefined;
  list(): readonly RegisteredMethod[];
}

function resolvePolicy(definition: MethodDefinition): ResolvedMethodPolicy {
  const { audit = definition.scope === 'admin', maxParamsBytes, requiresApproval = false } = definition.policy ?? {};
  if (maxParamsBytes !== undefined && !(Number.isSafeInteger(maxParamsBytes) && maxParamsBytes > 0)) {
    throw new TypeError(`JSON-RPC method '${definition.name}' has an invalid policy.maxParamsBytes: ${maxParamsBytes}`);
  }
  return maxParamsBytes === undefined ? { audit, requiresApproval } : { audit, maxParamsBytes, requiresApproval };
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
