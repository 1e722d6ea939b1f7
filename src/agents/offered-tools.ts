// The tool names an agent's turns are offered: its configured tools, plus skill_read when it opts into skills.
import type { AgentConfig } from '../config/index.js';

/** The tool src/skills registers for reading a skill's body or a file beside it. */
export const SKILL_READ_TOOL = 'skill_read';

/** One list per agent config (by identity), so the tool registry's per-list cache keeps answering without an await. */
const withSkillRead = new WeakMap<AgentConfig, readonly string[]>();

/** An agent without skills gets its own `tools` array back: nothing is allocated on its turn's path. */
export function offeredToolNames(config: AgentConfig): readonly string[] {
  if (config.skills !== '*' && config.skills.length === 0) return config.tools;
  let names = withSkillRead.get(config);
  if (names === undefined) {
    names = config.tools.includes(SKILL_READ_TOOL) ? config.tools : [...config.tools, SKILL_READ_TOOL];
    withSkillRead.set(config, names);
  }
  return names;
}
