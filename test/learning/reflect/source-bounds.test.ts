// Reflect holds a pass to learning.maxSourceTrajectories and maxSourceChars itself, whatever the port returned.
import { describe, expect, it } from 'vitest';
import { withinSourceBounds, type SourceTrajectory } from '../../../src/learning/reflect/index.js';

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
