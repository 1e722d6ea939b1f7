// The A2A capability module (issue 43): the gateway's exposed agents as A2A agents (cards, JSON-RPC binding, tasks as
// runs of kind `a2a`) and the `a2a:` tool source that delegates to remote A2A agents.
import type { ToolSource } from '../agents/index.js';
import type { CapabilityModule } from '../capability.js';
import type { CardAgent } from './card-agent.js';
import { createRemoteToolSource } from './remote-tool-source.js';
import { a2aRoutes } from './routes.js';
import type { A2aModuleDeps, A2aServing } from './types.js';

export interface A2aModule extends CapabilityModule {
  /** The `a2a:<remote>` entries of agents' tools lists. */
  readonly toolSource: ToolSource;
}

export function createA2aModule(deps: A2aModuleDeps): A2aModule {
  // The SDK and the tasks are loaded at the first request for an exposed agent, not at start.
  let serving: Promise<A2aServing> | undefined;
  const loadServing = () => (serving ??= import('./serving.js').then((loaded) => loaded.createA2aServing(deps)));

  /** a2a.expose, read live: agents that are configured and not suspended, in the listed order. */
  function exposed(): CardAgent[] {
    return deps
      .config()
      .expose.map((id) => deps.agents.get(id))
      .flatMap((agent) =>
        agent === undefined || agent.status !== 'active' ? [] : [{ id: agent.id, name: agent.config.name }],
      );
  }

  return {
    name: 'a2a',
    toolSource: createRemoteToolSource({
      remotes: () => deps.config().remotes,
      limits: () => deps.config().limits,
      audit: deps.audit,
      newId: deps.newId,
      log: deps.log,
    }),
    routes: a2aRoutes({ auth: deps.auth, exposed, serving: loadServing }),
    async stop() {
      await (await serving)?.close();
    },
  };
}
