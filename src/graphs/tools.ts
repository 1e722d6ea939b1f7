// The pipeline_define and pipeline_run agent tools: a model authors a graph (checked against its own agent and tools, so
// a pipeline never reaches beyond its author; recorded with its model's tier) and starts runs of stored graphs owned by
// the session's owner.
import { z } from 'zod';
import { agentModels, defineTool, type AgentRegistry } from '../agents/index.js';
import { agentNotFound } from '../errors.js';
import type { ModelRouter } from '../providers/index.js';
import type { GraphAuthoring } from './authoring.js';
import type { GraphRuns } from './graph-runs.js';

export interface GraphToolsDeps {
  authoring: GraphAuthoring;
  runs: GraphRuns;
  agents: Pick<AgentRegistry, 'get'>;
  router: Pick<ModelRouter, 'resolve' | 'entry'>;
  /** Whether a tool is registered (a definition may only name tools that run). */
  hasTool: (name: string) => boolean;
}

export function graphTools(deps: GraphToolsDeps) {
  return [
    defineTool({
      name: 'pipeline_define',
      description:
        'Stores a pipeline (an execution graph) you can then start with pipeline_run: {name, description?, vars?: {name: ' +
        '{type: string|number|boolean|array|object, default?}}, nodes: [{id, type: agent|tool|approval|map, needs?: [ids], ' +
        'when?: condition, retries?, timeoutMs?, …}], output?: template}. agent: {agentId (your own), message}; tool: {tool, args} ' +
        '(only your own tools); approval: {summary}; map: {over: template of an array, concurrency, node: an agent or tool ' +
        'node without id}. Templates read {{vars.x}}, {{nodes.<id>.output}} and {{item}} inside a map; an agent node whose ' +
        'answer is JSON outputs that value. A refused definition names the path of the problem.',
      input: z.strictObject({ definition: z.record(z.string(), z.unknown()) }),
      async execute({ definition }, ctx) {
        const agent = deps.agents.get(ctx.agentId);
        if (agent === undefined) throw agentNotFound(ctx.agentId);
        const primary = agentModels(agent.config, deps.router).primary;
        const tier = (primary === undefined ? undefined : deps.router.entry(primary)?.tier) ?? 'frontier';
        const own = new Set(agent.config.tools);
        const graph = await deps.authoring.define({
          definition,
          // Another agent's turns would run with that agent's tools: a model's pipeline names only its own agent.
          context: {
            hasAgent: (id) => id === ctx.agentId,
            hasTool: (name) => own.has(name) && deps.hasTool(name),
            outOfReach: (kind, name) =>
              kind === 'agent'
                ? `agent '${name}' is not the authoring agent ('${ctx.agentId}'); a pipeline may only name its own agent`
                : `tool '${name}' is not one of the authoring agent's tools`,
          },
          tier,
          createdBy: ctx.ownerId,
          agentId: ctx.agentId,
          mayReplaceOthers: false,
        });
        return { name: graph.name, nodes: graph.definition.nodes.length };
      },
    }),
    defineTool({
      name: 'pipeline_run',
      description:
        'Starts a run of a stored pipeline with the given vars; returns { runId } at once (the run goes on in the background).',
      input: z.strictObject({
        name: z.string().min(1).max(128),
        vars: z.record(z.string().max(128), z.unknown()).optional(),
      }),
      execute: ({ name, vars }, ctx) =>
        deps.runs.start({
          name,
          ...(vars === undefined ? {} : { vars }),
          caller: { clientId: ctx.ownerId, isAdmin: false },
        }),
    }),
  ];
}
