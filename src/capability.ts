// What a capability module is: the methods, routes, tools and turn hooks one folder adds, and its start/stop.
import type { FastifyInstance } from 'fastify';
import type { ToolDefinition } from './agents/index.js';
import type { MethodDefinition } from './rpc/index.js';
import type { TurnHooks } from './turns/index.js';

/** Registers a module's HTTP routes inside its own encapsulated Fastify scope. */
export type RouteRegistrar = (scope: FastifyInstance) => Promise<void> | void;

export interface CapabilityModule {
  /** Names the module in logs and startup errors. */
  readonly name: string;
  readonly methods?: readonly MethodDefinition[];
  readonly routes?: RouteRegistrar;
  readonly tools?: readonly ToolDefinition[];
  /** One set of turn hooks, or several (a module built of parts) run in the order given. */
  readonly hooks?: Partial<TurnHooks> | readonly Partial<TurnHooks>[];
  /** Called once after every module is built, in list order. */
  start?(): Promise<void> | void;
  /** Called on shutdown in reverse list order; releases what start() or the constructor took. */
  stop?(): Promise<void> | void;
}
