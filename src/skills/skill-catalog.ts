// What an agent is offered: the loaded skills and its learned procedures its `skills` opt-in names ("*": all), a
// folder's skill winning a name both have; and the entries skills.list and skills.get show.
import type { AgentRegistry } from '../agents/index.js';
import type { SkillRegistry } from './skill-registry.js';
import type { LearnedProcedureSource, OfferedSkill } from './types.js';

export interface SkillCatalogDeps {
  registry: Pick<SkillRegistry, 'get' | 'list'>;
  learned: LearnedProcedureSource;
  agents: Pick<AgentRegistry, 'get' | 'list'>;
}

/** One entry of skills.list (and, with the body, skills.get). */
export interface SkillEntry {
  name: string;
  description: string;
  source: 'dir' | 'learned';
  state?: 'candidate' | 'active' | 'stale';
  id?: string;
  /** null: reading the skill does not narrow the turn's tools. */
  allowedTools: string[] | null;
  files: string[];
}

export interface SkillCatalog {
  /** Whether the agent opted into skills at all (a `skills` list that is not empty). */
  optedIn(agentId: string): boolean;
  /** The skills the agent is offered, folders' first, each name once. */
  offered(agentId: string): OfferedSkill[];
  /** One offered skill of the agent by name. */
  find(agentId: string, name: string): OfferedSkill | undefined;
  /** Every loaded skill and every agent's learned procedures (agentId absent), or what one agent is offered. */
  entries(agentId?: string): SkillEntry[];
  /** A loaded skill by name, else the first agent's learned procedure of that name. */
  lookup(name: string): OfferedSkill | undefined;
}

export const nameOf = (offered: OfferedSkill): string =>
  offered.source === 'dir' ? offered.skill.name : offered.procedure.name;

/** A skill's narrowing: its allowed tools, or null (a learned procedure listing none narrows nothing either). */
export function allowedToolsOf(offered: OfferedSkill): readonly string[] | null {
  if (offered.source === 'dir') return offered.skill.allowedTools;
  return offered.procedure.allowedTools.length === 0 ? null : offered.procedure.allowedTools;
}

export function entryOf(offered: OfferedSkill): SkillEntry {
  const allowedTools = allowedToolsOf(offered);
  const common = { allowedTools: allowedTools === null ? null : [...allowedTools] };
  if (offered.source === 'dir') {
    const { skill } = offered;
    return { name: skill.name, description: skill.description, source: 'dir', ...common, files: [...skill.files] };
  }
  const { procedure } = offered;
  return {
    name: procedure.name,
    description: procedure.description,
    source: 'learned',
    state: procedure.state,
    id: procedure.id,
    ...common,
    files: [],
  };
}

export function createSkillCatalog({ registry, learned, agents }: SkillCatalogDeps): SkillCatalog {
  const optIn = (agentId: string) => agents.get(agentId)?.config.skills ?? [];

  function offered(agentId: string): OfferedSkill[] {
    const wanted = optIn(agentId);
    if (wanted !== '*' && wanted.length === 0) return [];
    const named = wanted === '*' ? undefined : new Set(wanted);
    const chosen: OfferedSkill[] = [];
    const taken = new Set<string>();
    for (const skill of registry.list()) {
      if (named !== undefined && !named.has(skill.name)) continue;
      taken.add(skill.name);
      chosen.push({ source: 'dir', skill });
    }
    for (const procedure of learned.offered(agentId)) {
      if (taken.has(procedure.name) || (named !== undefined && !named.has(procedure.name))) continue;
      taken.add(procedure.name);
      chosen.push({ source: 'learned', procedure });
    }
    return chosen;
  }

  return {
    optedIn(agentId) {
      const wanted = optIn(agentId);
      return wanted === '*' || wanted.length > 0;
    },
    offered,
    find: (agentId, name) => offered(agentId).find((skill) => nameOf(skill) === name),
    entries(agentId) {
      if (agentId !== undefined) return offered(agentId).map(entryOf);
      const all: OfferedSkill[] = registry.list().map((skill) => ({ source: 'dir', skill }));
      for (const agent of agents.list())
        for (const procedure of learned.offered(agent.id)) all.push({ source: 'learned', procedure });
      return all.map(entryOf);
    },
    lookup(name) {
      const skill = registry.get(name);
      if (skill !== undefined) return { source: 'dir', skill };
      for (const agent of agents.list()) {
        const procedure = learned.offered(agent.id).find((candidate) => candidate.name === name);
        if (procedure !== undefined) return { source: 'learned', procedure };
      }
      return undefined;
    },
  };
}
