// Holds one pass's sources to learning.maxSourceTrajectories and maxSourceChars on reflect's own side, so the funnel's
// sourceTrajectoryCount and totalSourceChars stay within the configured caps whatever a port hands back.
import type { SourceTrajectory } from './types.js';

export interface SourceLimits {
  maxTrajectories: number;
  /** Characters of user message + answer, summed. */
  maxChars: number;
}

/** The newest sources that fit, newest first; the first one that would pass a cap ends the list (as the port reads). */
export function withinSourceBounds(sources: readonly SourceTrajectory[], limits: SourceLimits): SourceTrajectory[] {
  const newestFirst = [...sources].sort((a, b) => b.ts - a.ts);
  const kept: SourceTrajectory[] = [];
  let chars = 0;
  for (const source of newestFirst) {
    const size = source.userText.length + source.answerText.length;
    if (kept.length >= limits.maxTrajectories || chars + size > limits.maxChars) break;
    chars += size;
    kept.push(source);
  }
  return kept;
}
