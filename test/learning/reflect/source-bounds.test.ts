// What a reflect pass reads (learning.maxSourceTrajectories and maxSourceChars, whatever the port returned) and where
// the next pass starts.
import { describe, expect, it } from 'vitest';
import { passWatermark, withinSourceBounds, type SourceTrajectory } from '../../../src/learning/reflect/index.js';

const source = (traceId: string, ts: number, chars: number): SourceTrajectory => ({
  traceId,
  sessionKey: `s-${traceId}`,
  senderId: 'alice',
  agentId: 'ops',
  ts,
  outcome: 'success',
  toolSequence: ['current_time'],
  topicKey: 'clock',
  trusted: true,
  userText: 'u'.repeat(chars),
  answerText: '',
});

describe('reflect source bounds', () => {
  it('keeps the newest sources up to the count and character caps, stopping at the first that would pass them', () => {
    const sources = [source('old', 1, 10), source('newest', 3, 10), source('mid', 2, 10)];
    expect(withinSourceBounds(sources, { maxTrajectories: 2, maxChars: 100 }).map((one) => one.traceId)).toEqual([
      'newest',
      'mid',
    ]);
    expect(withinSourceBounds(sources, { maxTrajectories: 10, maxChars: 25 }).map((one) => one.traceId)).toEqual([
      'newest',
      'mid',
    ]);
    expect(withinSourceBounds([source('big', 5, 30), ...sources], { maxTrajectories: 10, maxChars: 25 })).toEqual([]);
  });

  it('hands back what already fits unchanged', () => {
    const sources = [source('b', 2, 5), source('a', 1, 5)];
    expect(withinSourceBounds(sources, { maxTrajectories: 2, maxChars: 10 })).toEqual(sources);
  });
});

describe('reflect pass watermark', () => {
  const cluster = (cardinality: number, ...sources: SourceTrajectory[]) => ({ cardinality, sources });

  it('is the newest source read when no cluster waits for corroboration', () => {
    const a = source('a', 10, 1);
    const b = source('b', 20, 1);
    expect(passWatermark([a, b], [cluster(2, b, a)])).toBe(20);
  });

  it('stops just before the oldest source of an uncorroborated cluster, so the next pass reads it again', () => {
    const lone = source('lone', 15, 1);
    const a = source('a', 10, 1);
    const b = source('b', 20, 1);
    const later = source('later', 30, 1);
    expect(passWatermark([later, b, lone, a], [cluster(2, b, a), cluster(1, later, lone)])).toBe(14);
  });
});
