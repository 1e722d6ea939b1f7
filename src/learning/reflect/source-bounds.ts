// What one reflect pass reads and where the next one starts: the sources held to learning.maxSourceTrajectories and
// maxSourceChars on reflect's own side (the funnel's counts stay within the caps whatever a port hands back), and the
// watermark that leaves turns still waiting for corroboration to be read again.
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

/**
 * Where the agent's pass is marked done: the newest source read, or just before the oldest source of a cluster still
 * below 2 distinct (session, sender) pairs, so a later session can corroborate it in a later pass. Every source read
 * is newer than the previous mark, so the mark never goes back.
 */
export function passWatermark(
  sources: readonly Pick<SourceTrajectory, 'ts'>[],
  clusters: readonly { cardinality: number; sources: readonly Pick<SourceTrajectory, 'ts'>[] }[],
): number {
  let waitingFrom = Number.POSITIVE_INFINITY;
  for (const cluster of clusters)
    if (cluster.cardinality < 2) for (const source of cluster.sources) waitingFrom = Math.min(waitingFrom, source.ts);
  if (waitingFrom !== Number.POSITIVE_INFINITY) return waitingFrom - 1;
  return sources.reduce((newest, source) => Math.max(newest, source.ts), 0);
}
