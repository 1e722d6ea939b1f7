// The skill registry's shapes: a loaded skill, a rejection, and the learned procedures src/learning offers beside them.

/** A learned procedure offered to an agent like a skill (state candidate | active | stale; archived ones never). */
export interface OfferedProcedure {
  id: string;
  agentId: string;
  name: string;
  description: string;
  body: string;
  state: 'candidate' | 'active' | 'stale';
  allowedTools: readonly string[];
}

/** Where learned procedures come from (src/learning implements it; app-modules wires it in). */
export interface LearnedProcedureSource {
  /** Synchronous, from src/learning's in-memory cache (refreshed on each of its changes and at least every 5 s). */
  offered(agentId: string): readonly OfferedProcedure[];
  /** Fire-and-forget: a skill_read of a skill in a turn. procedureId set for a learned procedure. */
  recordUse(use: { agentId: string; sessionKey: string; traceId: string; skill: string; procedureId?: string }): void;
}

/** A source with no learned procedures: what runs until src/learning provides one. */
export const NO_LEARNED_PROCEDURES: LearnedProcedureSource = {
  offered: () => [],
  recordUse: () => {},
};

/** A skill loaded from a folder holding a SKILL.md. */
export interface DirSkill {
  name: string;
  description: string;
  /** The markdown body after the front matter. */
  body: string;
  /** The tools a turn may call after reading the skill (plus skill_read); null: no narrowing. */
  allowedTools: readonly string[] | null;
  /** The skill's folder, resolved through symlinks: files read through skill_read stay inside it. */
  dir: string;
  /** Files beside SKILL.md, relative to the folder, `/`-separated. */
  files: readonly string[];
}

/** A folder that did not become a skill, and the rule or cap it broke. */
export interface SkillRejection {
  skill: string;
  reason: string;
}

/** What one load of the skills folders produced. */
export interface SkillLoad {
  skills: readonly DirSkill[];
  rejected: readonly SkillRejection[];
}

/** A skill as an agent is offered it: from a folder, or one of its learned procedures. */
export type OfferedSkill = { source: 'dir'; skill: DirSkill } | { source: 'learned'; procedure: OfferedProcedure };
