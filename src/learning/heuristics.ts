// The documented heuristics of learning outcomes (src/learning/README.md): the topic key of a user message, the
// correction test of a follow-up message, the tool-outcome rule, and the tool sequence a turn leaves.
import type { LearningOutcome } from '../store/index.js';

/** Words too common to say what a message is about; words under TOPIC_MIN_WORD_CHARS are dropped anyway. */
const STOP_WORDS = new Set(
  (
    'the and for are but not you all any can had her was one our out has him his how its may new now old see two ' +
    'who did get let put say she too use that with have this will your from they know want been good much some ' +
    'time very when come here just like long make many more only over such take than them well were what where ' +
    'which while would there their about after again also could does into most other should these those then ' +
    'please thanks thank tell give show find need help me my is it in on of to a an be do so if or'
  ).split(' '),
);
export const TOPIC_MIN_WORD_CHARS = 3;
export const TOPIC_WORDS = 3;

/**
 * Lowercase, split on non-letters/digits, drop stop words and words under 3 characters, take the 3 most frequent
 * (ties: first seen), sort, join with `+`. An empty message (or one of stop words only) has the key `""`.
 */
export function topicKey(message: string): string {
  const counts = new Map<string, number>();
  for (const word of message.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word.length < TOPIC_MIN_WORD_CHARS || STOP_WORDS.has(word)) continue;
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  // Map keeps first-seen order, and sort is stable: equal counts stay in first-seen order.
  const top = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOPIC_WORDS);
  return top
    .map(([word]) => word)
    .sort()
    .join('+');
}

/**
 * A follow-up message that says the previous answer was wrong: it opens with a denial ("no" but not "no worries",
 * "nope", "wrong", "incorrect", "that's not right", "not what I asked"), or says so anywhere ("you're wrong", "that
 * is incorrect", "the answer was wrong", "doesn't work", "didn't work", "not correct", "try again", "you
 * misunderstood"). Only the first CORRECTION_SCAN_CHARS characters are read: a correction comes first.
 */
const CORRECTION_OPENING =
  /^\s*(no(?!\s+(worries|problem|thanks|need|rush)\b)|nope|nah|wrong|incorrect|not quite|not right|that'?s not (right|it|correct|what i (asked|meant|wanted)))\b/iu;
const CORRECTION_ANYWHERE =
  /\b(you('| a)re wrong|(that|this|it|answer|result|response)('s| is| was) (wrong|incorrect|not (right|correct|true))|(does|did|do)n'?t work|(is|was) not correct|try again|you misunderstood|not what i (asked|meant|wanted))\b/iu;
export const CORRECTION_SCAN_CHARS = 200;

export function isCorrection(message: string): boolean {
  const head = message.slice(0, CORRECTION_SCAN_CHARS).replace(/[’‘]/gu, "'");
  return CORRECTION_OPENING.test(head) || CORRECTION_ANYWHERE.test(head);
}

/** One tool call of a turn, in order. */
export interface ToolCallSeen {
  toolName: string;
  ok: boolean;
}

/**
 * The tool rule: a turn that called tools succeeded when it finished with `stop` and every failed call was later
 * retried successfully (a later ok call of the same tool); otherwise it failed. A turn without tool calls, or one
 * that ended handing tool calls to its caller (`tool_calls`), has no tool outcome (undefined).
 */
export function toolOutcome(calls: readonly ToolCallSeen[], finishReason: string): LearningOutcome | undefined {
  // A turn handing calls to its caller (client tools) is not over: the caller's next request carries it on.
  if (calls.length === 0 || finishReason === 'tool_calls') return undefined;
  if (finishReason !== 'stop') return 'failure';
  const unrecovered = calls.some(
    (call, index) => !call.ok && !calls.slice(index + 1).some((later) => later.ok && later.toolName === call.toolName),
  );
  return unrecovered ? 'failure' : 'success';
}

/** Tool names in call order, failed calls left out, consecutive repeats collapsed. */
export function toolSequence(calls: readonly ToolCallSeen[]): string[] {
  const sequence: string[] = [];
  for (const call of calls) if (call.ok && sequence.at(-1) !== call.toolName) sequence.push(call.toolName);
  return sequence;
}
