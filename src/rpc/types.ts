// What a JSON-RPC method is (name, scope, strict params, policy, handler) and what its handler is given: the
// contract every capability folder declares its methods with.
import type { z } from 'zod';
import type { Logger } from 'pino';
import type { Caller, Transport } from '../server/types.js';

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
  /**
   * The call changes nothing (a listing, a status, a report): audited only when the config says `audit.reads: true`.
   * Default: true when the name's last part is a read verb (READ_VERBS in registry.ts), false otherwise.
   */
  readOnly?: boolean;
}

export interface ResolvedMethodPolicy {
  audit: boolean;
  readOnly: boolean;
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

export interface MethodRegistry {
  get(name: string): RegisteredMethod | undefined;
  list(): readonly RegisteredMethod[];
}

/**
 * The part of a capability module a folder below capability.ts can build: its name, its methods, and its start and
 * stop. CapabilityModule (src/capability.ts) adds routes, tools and turn hooks.
 */
export interface MethodModule {
  /** Names the module in logs and startup errors. */
  readonly name: string;
  readonly methods?: readonly MethodDefinition[];
  /** Called once after every module is built, in list order. */
  start?(): Promise<void> | void;
  /** Called on shutdown in reverse list order; releases what start() or the constructor took. */
  stop?(): Promise<void> | void;
}
