// GET /api/agents: every configured agent with its provider, model and status.
import type { FastifyInstance } from 'fastify';
import { agentModels, type AgentDefinition } from '../../agents/index.js';
import { grantsRest } from '../../server/index.js';
import type { RestContext } from './types.js';

/** Spec route table: id, name, provider, model; plus status (active or suspended). Unset values are null. */
export function agentSummary(agent: AgentDefinition, ctx: Pick<RestContext, 'router'>) {
  const { name, provider, model } = agent.config;
  const resolved = agentModels(agent.config, ctx.router).primary;
  return {
    id: agent.id,
    name,
    provider: resolved?.provider ?? provider ?? null,
    model: resolved?.modelId ?? model ?? null,
    status: agent.status,
  };
}

export function registerAgentsRoute(scope: FastifyInstance, ctx: RestContext): void {
  scope.get('/agents', { onRequest: ctx.auth.require({ grants: grantsRest }) }, async function listAgents() {
    return { agents: ctx.agents.list().map((agent) => agentSummary(agent, ctx)) };
  });
}
