// The graphs capability module: graph.* methods, the pipeline_* tools, graph runs through the executor and the
// node-type runners, orphan marking at start, and every run of this process stopped and recorded at shutdown.
import type { Logger } from 'pino';
import type { AgentRegistry, ToolRegistry } from '../agents/index.js';
import type { ApprovalService } from '../approvals/index.js';
import type { CapabilityModule } from '../capability.js';
import type { EventBus } from '../events/index.js';
import type { HealthSignalRecorder } from '../obs/index.js';
import type { ModelRouter } from '../providers/index.js';
import type { RunControl } from '../runs/index.js';
import type { RunPort } from '../store/index.js';
import type { TurnService } from '../turns/index.js';
import type { TurnHooks } from '../turns/types.js';
import { createGraphAuthoring, type GraphDefinitionStore } from './authoring.js';
import { evaluateCondition } from './condition.js';
import { validateDefinition } from './definition.js';
import { createGraphRuns, type GraphRuns, type GraphRunStore } from './graph-runs.js';
import { graphMethods } from './methods.js';
import { isMcpToolEntry, isSingleMcpTool } from './node-types.js';
import { createNodeRunners } from './run-nodes.js';
import { renderTemplate } from './template.js';
import { graphTools } from './tools.js';

export interface GraphsModuleDeps {
  /** The graph store (GraphPort) and the runs table (a graph run's record tells whether a live instance owns it). */
  store: { graphs: GraphRunStore & GraphDefinitionStore; runs: Pick<RunPort, 'get'> };
  runControl: Pick<RunControl, 'startRun' | 'onStop'>;
  turns: Pick<TurnService, 'run'>;
  agents: Pick<AgentRegistry, 'get' | 'defaultAgentId'>;
  tools: Pick<ToolRegistry, 'execute' | 'names' | 'has' | 'forTurn'>;
  hooks: Pick<TurnHooks, 'beforeTool'>;
  approvals: Pick<ApprovalService, 'ask'>;
  router: Pick<ModelRouter, 'resolve' | 'entry'>;
  events: Pick<EventBus, 'emit'>;
  signals?: HealthSignalRecorder;
  /** Learning's observe (source pipeline). */
  observe?: (observed: { traceId: string; outcome: 'success' | 'failure'; source: 'pipeline' }) => Promise<unknown>;
  now: () => number;
  newId: () => string;
  log: Logger;
}

export interface GraphsModule extends CapabilityModule {
  readonly runs: GraphRuns;
}

export function createGraphsModule(deps: GraphsModuleDeps): GraphsModule {
  const { agents, tools, now, log } = deps;
  const port = deps.store.graphs;
  const templates = { render: renderTemplate, evaluate: evaluateCondition };
  const defaultAgentId = () => agents.defaultAgentId();
  const runners = createNodeRunners({ ...deps, defaultAgentId, templates });
  const runs = createGraphRuns({
    port,
    runControl: deps.runControl,
    runs: deps.store.runs,
    events: deps.events,
    runners,
    templates,
    defaultAgentId,
    ...(deps.observe === undefined ? {} : { observe: deps.observe }),
    now,
    newId: deps.newId,
    log,
  });
  const authoring = createGraphAuthoring({
    store: port,
    validate: validateDefinition,
    ...(deps.signals === undefined ? {} : { signals: deps.signals }),
    now,
  });
  // An MCP entry is accepted when it names one tool of a configured server (the registry's `mcp:` source knows it).
  const hasTool = (name: string) =>
    isMcpToolEntry(name) ? isSingleMcpTool(name) && tools.has(name) : tools.names().includes(name);
  return {
    name: 'graphs',
    runs,
    methods: graphMethods({
      store: port,
      authoring,
      runs,
      context: () => ({ hasAgent: (id) => agents.get(id) !== undefined, hasTool }),
    }),
    tools: graphTools({ authoring, runs, agents, router: deps.router, hasTool }),
    async start() {
      await runs.markOrphaned();
    },
    stop: () => runs.close(),
  };
}
