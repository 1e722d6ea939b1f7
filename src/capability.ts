// What a capability module is: the methods, routes, tools and turn hooks one folder adds, and its start/stop.
import type { TurnHooks } from './turns/types.js';
import type { MethodModule } from './rpc/types.js';
import type { FastifyInstance } from 'fastify';
import type { ToolDefinition } from './agents/tools/types.js';

/** Registers a module's HTTP routes inside its own encapsulated Fastify scope. */
export type RouteRegistrar = (scope: FastifyInstance) => Promise<void> | void;

export interface CapabilityModule extends MethodModule {
  readonly routes?: RouteRegistrar;
  readonly tools?: readonly ToolDefinition[];
  /** One set of turn hooks, or several (a module built of parts) run in the order given. */
  readonly hooks?: Partial<TurnHooks> | readonly Partial<TurnHooks>[];
}
