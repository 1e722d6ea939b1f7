// A learned procedure's SKILL.md-style text (goal, steps, tools), the one written without a model when synthesis
// abstains, and the name and tool rules every procedure is held to before admission.
import { MAX_PROCEDURE_DESCRIPTION_CHARS, MAX_PROCEDURE_NAME_CHARS } from './limits.js';

export interface Procedure {
  name: string;
  description: string;
  body: string;
  /** Distinct, in first-use order. */
  tools: readonly string[];
}

export interface ProcedureText {
  goal: string;
  steps: readonly string[];
  tools: readonly string[];
}

/** The markdown body: the sections a SKILL.md of a learned procedure has. */
export function renderProcedureBody({ goal, steps, tools }: ProcedureText): string {
  return [
    '## Goal',
    '',
    goal,
    '',
    '## Steps',
    '',
    ...steps.map((step, index) => `${index + 1}. ${step}`),
    '',
    '## Tools',
    '',
    ...tools.map((tool) => `- \`${tool}\``),
    '',
  ].join('\n');
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

const distinct = (items: readonly string[]): string[] => [...new Set(items)];

export const topicWords = (topicKey: string): string[] => topicKey.split('+').filter((word) => word !== '');

export interface ClusterShape {
  topicKey: string;
  toolSequence: readonly string[];
  cardinality: number;
}

/**
 * The procedure made from the cluster alone: named by its topic words and tools (kept whole, so a name over 64
 * characters is refused and counted rather than silently cut), one step per call of the sequence.
 */
export function deterministicProcedure({ topicKey, toolSequence, cardinality }: ClusterShape): Procedure {
  const words = topicWords(topicKey);
  const tools = distinct(toolSequence);
  const name = slug([...words, ...tools].join('-')) || 'learned-procedure';
  const about = words.length === 0 ? '' : ` about ${words.join(', ')}`;
  const description = `Learned from ${cardinality} corroborating sessions: a request${about} answered by calling ${toolSequence.join(' → ')}.`;
  return {
    name,
    description: description.slice(0, MAX_PROCEDURE_DESCRIPTION_CHARS),
    body: renderProcedureBody({
      goal: `Handle a request${about} the way ${cardinality} successful sessions did.`,
      steps: [...toolSequence.map((tool) => `Call \`${tool}\`.`), 'Answer the user from the results.'],
      tools,
    }),
    tools,
  };
}

export const isProcedureNameTooLong = (name: string): boolean => name.length > MAX_PROCEDURE_NAME_CHARS;

/** The procedure's tools that the agent is not given (unknown to the registry, or not in the agent's list). */
export const missingTools = (tools: readonly string[], offered: ReadonlySet<string>): string[] =>
  tools.filter((tool) => !offered.has(tool));
