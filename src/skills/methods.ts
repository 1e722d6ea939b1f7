// skills.* methods: the loaded skills and learned procedures (all, or what one agent is offered), one skill with its
// body, and a reload of the skills folders now.
import { z } from 'zod';
import type { AgentRegistry } from '../agents/index.js';
import { agentNotFound, skillNotFound } from '../errors.js';
import { defineMethod, noParams } from '../rpc/index.js';
import { entryOf, type SkillCatalog } from './skill-catalog.js';
import type { SkillRegistry } from './skill-registry.js';

export interface SkillMethodsDeps {
  catalog: SkillCatalog;
  registry: Pick<SkillRegistry, 'reload'>;
  agents: Pick<AgentRegistry, 'get'>;
}

export function skillMethods({ catalog, registry, agents }: SkillMethodsDeps) {
  return [
    defineMethod({
      name: 'skills.list',
      scope: 'rpc',
      summary:
        "The loaded skills and the agents' learned procedures (source dir or learned, with state and id), name, description, allowedTools (null: no narrowing) and files; with agentId only what that agent is offered (none when it did not opt in).",
      params: z.strictObject({ agentId: z.string().min(1).max(128).optional() }),
      handler: ({ agentId }) => {
        if (agentId !== undefined && agents.get(agentId) === undefined) throw agentNotFound(agentId);
        return { skills: catalog.entries(agentId) };
      },
    }),
    defineMethod({
      name: 'skills.get',
      scope: 'rpc',
      summary:
        'One skill by name with its body: a loaded skill, else a learned procedure of that name; unknown: not_found.',
      params: z.strictObject({ name: z.string().min(1).max(64) }),
      handler: ({ name }) => {
        const offered = catalog.lookup(name);
        if (offered === undefined) throw skillNotFound(name);
        const body = offered.source === 'dir' ? offered.skill.body : offered.procedure.body;
        return { ...entryOf(offered), body };
      },
    }),
    defineMethod({
      name: 'skills.reload',
      scope: 'admin',
      summary:
        'Loads the skills folders now (skill:registry_reset, skill:loaded each, skill:rejected with the reason): how many loaded, and each rejected folder with the rule or cap it broke.',
      params: noParams,
      handler: async () => {
        const { skills, rejected } = await registry.reload();
        return { loaded: skills.length, rejected: rejected.map(({ skill, reason }) => ({ skill, reason })) };
      },
    }),
  ];
}
