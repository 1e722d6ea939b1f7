// agents.* methods (admin): list, read and change agent configurations live; each change is one config commit.
import { z } from 'zod';
import { safeKeySchema } from '../config/index.js';
import { agentNotFound } from '../errors.js';
import { defineMethod, noParams } from '../rpc/index.js';
import type { ManagedAgentRegistry } from './agent-registry.js';
import type { AgentDefinition } from './types.js';

/** An agent id becomes a key of the config's `agents:` map, so `__proto__`, `constructor` and `prototype` are refused. */
const agentId = safeKeySchema.min(1).max(128);

/**
 * The agent configuration fields a caller may send. Types only: bounds (maxSteps ≤ 100, known provider, …)
 * are checked by the config schema on the whole result, so the message names the config key.
 */
const agentFields = {
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  systemPrompt: z.string().optional(),
  maxSteps: z.number().int().optional(),
  tools: z.array(z.string()).optional(),
  budget: z.strictObject({ maxTokensPerTurn: z.number().int().optional() }).optional(),
  fallbackModels: z.array(z.string()).optional(),
  /** Skill names, or "*" for every loaded skill (the dashboard's tools picker offers them beside the tools). */
  skills: z.union([z.literal('*'), z.array(z.string())]).optional(),
};

function describe({ id, config }: AgentDefinition) {
  return { agentId: id, ...config };
}

export function agentMethods({ agents }: { agents: ManagedAgentRegistry }) {
  function mustGet(id: string): AgentDefinition {
    const agent = agents.get(id);
    if (agent === undefined) throw agentNotFound(id);
    return agent;
  }

  return [
    defineMethod({
      name: 'agents.list',
      scope: 'admin',
      summary: 'Ids of every configured agent, suspended ones included.',
      params: noParams,
      handler: () => ({ agents: agents.list().map((agent) => agent.id) }),
    }),
    defineMethod({
      name: 'agents.create',
      scope: 'admin',
      summary: 'Adds an agent to the config (id from agentId, else derived from the name); live at once.',
      params: z.strictObject({ agentId: agentId.optional(), name: z.string().min(1), ...agentFields }),
      handler: async ({ agentId: id, ...fields }) => describe(await agents.create(id, fields)),
    }),
    defineMethod({
      name: 'agents.get',
      scope: 'admin',
      summary: 'The configuration of one agent, defaults filled in.',
      params: z.strictObject({ agentId }),
      handler: ({ agentId: id }) => describe(mustGet(id)),
    }),
    defineMethod({
      name: 'agents.update',
      scope: 'admin',
      summary:
        'Changes only the given fields, live with no restart; dryRun validates (provider credentials too) without saving.',
      params: z.strictObject({
        agentId,
        name: z.string().min(1).optional(),
        dryRun: z.boolean().optional(),
        ...agentFields,
      }),
      handler: async ({ agentId: id, dryRun = false, ...fields }, ctx) => {
        if (dryRun) return { agentId: id, ...(await agents.dryRunUpdate(id, fields, ctx.signal)) };
        return describe(await agents.update(id, fields));
      },
    }),
    defineMethod({
      name: 'agents.delete',
      scope: 'admin',
      summary: 'Removes an agent from the config; its sessions stay in the store and new turns for it fail.',
      params: z.strictObject({ agentId }),
      handler: async ({ agentId: id }) => {
        await agents.delete(id);
        return { agentId: id, deleted: true };
      },
    }),
    defineMethod({
      name: 'agents.suspend',
      scope: 'admin',
      summary: 'Stops the agent accepting new messages (persisted as suspended: true); running turns finish.',
      params: z.strictObject({ agentId }),
      handler: async ({ agentId: id }) => {
        await agents.suspend(id);
        return { agentId: id, suspended: true };
      },
    }),
    defineMethod({
      name: 'agents.resume',
      scope: 'admin',
      summary: 'Lets a suspended agent accept messages again (persisted as suspended: false).',
      params: z.strictObject({ agentId }),
      handler: async ({ agentId: id }) => {
        await agents.resume(id);
        return { agentId: id, resumed: true };
      },
    }),
  ];
}
