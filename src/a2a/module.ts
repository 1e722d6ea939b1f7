// The A2A capability module (issue 43): the gateway's exposed agents as A2A agents (cards, JSON-RPC binding, tasks as
// runs of kind `a2a`) and the `a2a:` tool source that delegates to remote A2A agents.
import type { Logger } from 'pino';
import type { AgentRegistry, ToolSource } from '../agents/index.js';
import type { CapabilityModule } from '../capability.js';
import type { A2aConfig } from '../config/index.js';
import type { EventBus } from '../events/index.js';
import type { AuditInput } from '../obs/index.js';
import type { RunControl } from '../runs/index.js';
import type { A2aTaskPort, RunPort } from '../store/index.js';
import type { RequestAuth } from '../server/index.js';
import type { TurnRunner } from '../turns/index.js';
import type { CardAgent } from './cards.js';
import { createRemoteToolSource } from './remote-tool-source.js';
import { createRequestHandler } from './request-handler.js';
import { a2aRoutes } from './routes.js';
import { createTaskRunner } from './task-runner.js';
import { createTaskStore } from './task-store.js';

export interface A2aModuleDeps {
  config: () => A2aConfig;
  agents: Pick<AgentRegistry, 'get'>;
  turns: TurnRunner;
  runControl: Pick<RunControl, 'startRun' | 'kill'>;
  /** Where tasks are kept, and the runs they ran as (a task whose run ended without it reads failed). */
  store: { a2aTasks: A2aTaskPort; runs: Pick<RunPort, 'get'> };
  events: Pick<EventBus, 'subscribe'>;
  auth: RequestAuth;
  audit: { record(input: AuditInput): void };
  version: string;
  now: () => number;
  newId: () => string;
  log: Logger;
}

export interface A2aModule extends CapabilityModule {
  /** The `a2a:<remote>` entries of agents' tools lists. */
  readonly toolSource: ToolSource;
}

export function createA2aModule(deps: A2aModuleDeps): A2aModule {
  const limits = () => deps.config().limits;
  const store = createTaskStore({
    port: deps.store.a2aTasks,
    runEnd: async (runId) => {
      const run = await deps.store.runs.get(runId);
      return run === undefined ? undefined : { status: run.status, completedAt: run.completedAt };
    },
    now: deps.now,
    maxTasksKept: () => limits().maxTasksKept,
    log: deps.log,
  });
  const runner = createTaskRunner({
    store,
    turns: deps.turns,
    runControl: deps.runControl,
    events: deps.events,
    limits,
    now: deps.now,
    newId: deps.newId,
    log: deps.log,
  });

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
      limits,
      audit: deps.audit,
      newId: deps.newId,
      log: deps.log,
    }),
    routes: a2aRoutes({
      auth: deps.auth,
      exposed,
      version: deps.version,
      log: deps.log,
      handlerFor: (agentId, caller, card, hangUp) =>
        createRequestHandler({ agentId, caller, card, store, runner, limits: limits(), hangUp }),
    }),
    async stop() {
      await runner.close();
      await store.flush();
    },
  };
}
