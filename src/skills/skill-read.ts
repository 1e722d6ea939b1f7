// The skill_read tool: an opted-in agent reads one of its offered skills' body (or a file beside its SKILL.md) on
// demand; each read is announced (skill:executed), told to the learned-procedure source, and narrows the turn's tools.
import type { Logger } from 'pino';
import { z } from 'zod';
import { DEFAULT_TOOL_LIMITS, defineTool, SKILL_READ_TOOL } from '../agents/index.js';
import type { SkillsConfig } from '../config/index.js';
import { skillFileRefused, skillNotFound } from '../errors.js';
import type { EventBus } from '../events/index.js';
import { nameOf, type SkillCatalog } from './skill-catalog.js';
import { readSkillFile } from './skill-file.js';
import type { SkillTurns } from './skill-hooks.js';
import type { LearnedProcedureSource } from './types.js';

export const skillReadInput = z.strictObject({
  name: z.string().min(1).max(64).describe('The skill to read, as listed'),
  file: z
    .string()
    .min(1)
    .max(1_024)
    .optional()
    .describe('A file beside the skill, relative to its folder; absent: the skill itself'),
  offset: z
    .number()
    .int()
    .min(0)
    .max(16_777_216)
    .optional()
    .describe('Where to go on reading, as the end of the previous part said; absent: from the start'),
});

/** Room kept under the turn's tool-result cap for the line that says how to read on. */
const CONTINUATION_ROOM = 200;

/**
 * The part of `content` from `offset` that fits the turn's tool-result cap (the registry would cut the rest), ending
 * with how to read on, so a body longer than the cap reaches the model whole over several reads.
 */
function partOf(content: string, offset: number, maxResultChars: number, name: string, file?: string): string {
  const room = Math.max(1, maxResultChars - CONTINUATION_ROOM);
  if (offset === 0 && content.length <= maxResultChars) return content;
  const end = Math.min(content.length, offset + room);
  const part = content.slice(offset, end);
  if (end >= content.length) return part;
  const next = JSON.stringify({ name, ...(file === undefined ? {} : { file }), offset: end });
  return `${part}\n\n[${content.length - end} more characters: call skill_read ${next} to read on]`;
}

export interface SkillReadDeps {
  catalog: SkillCatalog;
  turns: Pick<SkillTurns, 'followed'>;
  learned: LearnedProcedureSource;
  config: () => SkillsConfig;
  events: Pick<EventBus, 'emit'>;
  log: Logger;
}

export function skillReadTool({ catalog, turns, learned, config, events, log }: SkillReadDeps) {
  return defineTool({
    name: SKILL_READ_TOOL,
    description:
      'Reads one of your skills: its instructions, or a file beside them. Read a skill before following it; while you follow it, only the tools it allows may be called.',
    input: skillReadInput,
    async execute({ name, file, offset = 0 }, ctx) {
      const offered = catalog.find(ctx.agentId, name);
      if (offered === undefined) throw skillNotFound(name);
      let content: string;
      if (file === undefined) content = offered.source === 'dir' ? offered.skill.body : offered.procedure.body;
      else if (offered.source === 'learned') throw skillFileRefused(file, 'a learned procedure has no files');
      else content = await readSkillFile(name, offered.skill.dir, file, config().maxFileBytes);
      // Reading on (offset > 0) is the same use of the skill, announced and counted once.
      if (offset === 0) events.emit('skill:executed', { agentId: ctx.agentId, skill: nameOf(offered) });
      if (ctx.turn !== undefined && offset === 0) {
        turns.followed(ctx.turn.traceId, offered);
        try {
          learned.recordUse({
            agentId: ctx.agentId,
            sessionKey: ctx.sessionKey,
            traceId: ctx.turn.traceId,
            skill: nameOf(offered),
            ...(offered.source === 'learned' ? { procedureId: offered.procedure.id } : {}),
          });
        } catch (error) {
          // Bookkeeping of learning must not fail a read the model already has.
          log.warn({ err: error, traceId: ctx.turn.traceId }, 'recording a skill use failed');
        }
      }
      const maxResultChars = ctx.turn?.toolLimits.maxResultChars ?? DEFAULT_TOOL_LIMITS.maxResultChars;
      return partOf(content, offset, maxResultChars, name, file);
    },
  });
}
