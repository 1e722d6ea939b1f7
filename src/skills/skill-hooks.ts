// The turn hooks of skills: the offered skills listed in front of an opted-in agent's model calls (name and description
// only), and a read skill's allowed-tools narrowing the rest of the turn; both kept per turn, bounded, cleared at its end.
import { SKILL_READ_TOOL } from '../agents/index.js';
import type { TranscriptMessage } from '../providers/index.js';
import type { ModelContextAddition, ToolDecision, TurnHooks } from '../turns/types.js';
import { allowedToolsOf, nameOf, type SkillCatalog } from './skill-catalog.js';
import type { OfferedSkill } from './types.js';

/** Turns whose skill state is kept at once; past it the oldest turn's is dropped (a turn that never ended). */
export const SKILL_TURNS_KEPT = 1_024;

export const SKILLS_HEADER =
  'Skills you can use: call skill_read {name} to read one before following it, skill_read {name, file} for a file it names.';

/** The tools one turn may still call, set by the skill it read last that lists allowed-tools. */
interface Narrowing {
  skill: string;
  tools: ReadonlySet<string>;
}

function lineOf(offered: OfferedSkill): string {
  // A newline in a description would let it pose as another entry or a header.
  const flat = (text: string) => text.replace(/\s*\n\s*/g, ' ');
  if (offered.source === 'dir') return `- ${offered.skill.name}: ${flat(offered.skill.description)}`;
  const { procedure } = offered;
  return `- ${procedure.name} (learned, ${procedure.state}): ${flat(procedure.description)}`;
}

/** The system message listing the skills, or undefined when there are none. */
export function skillsMessage(offered: readonly OfferedSkill[], timestamp: number): TranscriptMessage | undefined {
  if (offered.length === 0) return undefined;
  return { role: 'system', content: [SKILLS_HEADER, ...offered.map(lineOf)].join('\n'), timestamp };
}

/** A map that forgets its oldest entry past SKILL_TURNS_KEPT. */
function boundedSet<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= SKILL_TURNS_KEPT) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
  map.set(key, value);
}

export interface SkillTurns {
  hooks: Pick<TurnHooks, 'beforeModel' | 'beforeTool' | 'afterTurn'>;
  /** Called by skill_read once it read a skill in a turn: its allowed-tools govern the rest of the turn. */
  followed(traceId: string, offered: OfferedSkill): void;
}

export function createSkillTurns(catalog: SkillCatalog, now: () => number): SkillTurns {
  const listed = new Map<string, ModelContextAddition | undefined>();
  const narrowed = new Map<string, Narrowing>();

  return {
    followed(traceId, offered) {
      const tools = allowedToolsOf(offered);
      if (tools !== null) boundedSet(narrowed, traceId, { skill: nameOf(offered), tools: new Set(tools) });
    },
    hooks: {
      async beforeModel(input, ctx) {
        if (input.step > 1) return listed.get(ctx.traceId);
        if (!catalog.optedIn(ctx.agentId)) return undefined;
        const message = skillsMessage(catalog.offered(ctx.agentId), now());
        const addition = message === undefined ? undefined : { source: 'skills', messages: [message] };
        boundedSet(listed, ctx.traceId, addition);
        return addition;
      },
      async beforeTool(call, ctx): Promise<ToolDecision> {
        const narrowing = narrowed.get(ctx.traceId);
        if (narrowing === undefined || call.toolName === SKILL_READ_TOOL || narrowing.tools.has(call.toolName))
          return { action: 'allow' };
        const allowed = [...narrowing.tools].join(', ') || 'none';
        return {
          action: 'deny',
          reason: `skill '${narrowing.skill}' allows only its allowed-tools (${allowed}) and skill_read for the rest of this turn`,
        };
      },
      async afterTurn(_summary, ctx) {
        listed.delete(ctx.traceId);
        narrowed.delete(ctx.traceId);
      },
    },
  };
}
