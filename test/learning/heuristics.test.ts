// The documented outcome heuristics (src/learning/README.md): topic key, correction test, tool-outcome rule and the
// tool sequence a turn leaves.
import { describe, expect, it } from 'vitest';
import { isCorrection, toolOutcome, toolSequence, topicKey } from '../../src/learning/index.js';

describe('topic key', () => {
  it('keeps the 3 most frequent words past stop words and short words, sorted, joined with +', () => {
    expect(topicKey('What is the weather in Berlin? Berlin weather tomorrow, please, and the forecast')).toBe(
      'berlin+tomorrow+weather',
    );
    expect(topicKey('Deploy the API; deploy it to staging')).toBe('api+deploy+staging');
  });

  it('breaks ties by first seen and reads non-English letters and digits as words', () => {
    expect(topicKey('zeta alpha mu2 beta gamma')).toBe('alpha+mu2+zeta');
    expect(topicKey('Größe der Straße')).toBe('der+größe+straße');
  });

  it('is "" for an empty message or one of stop words and short words only', () => {
    expect(topicKey('')).toBe('');
    expect(topicKey('Can you do it for me?')).toBe('');
  });
});

describe('correction heuristic', () => {
  it.each([
    'No, that is wrong',
    'nope',
    'Wrong. The capital is Canberra.',
    "That's not what I asked",
    'That’s not right, try the other file',
    'Incorrect: it was 1969',
    'I think you are wrong about this',
    "It doesn't work",
    'That answer is incorrect',
    'Please try again',
    'you misunderstood me',
  ])('reads %j as a correction', (message) => {
    expect(isCorrection(message)).toBe(true);
  });

  it.each([
    'Thanks, that is right',
    'Now do the same for Paris',
    'No worries, thanks!',
    'No problem',
    'Is there nothing wrong with the build?',
    'What is wrong with the build?',
    'Notes for the meeting',
    'I know it works',
    '',
  ])('does not read %j as a correction', (message) => {
    expect(isCorrection(message)).toBe(false);
  });

  it('reads only the head of a long message', () => {
    expect(isCorrection(`${'a'.repeat(300)} that is wrong`)).toBe(false);
  });
});

describe('tool-outcome rule', () => {
  it('succeeds when the turn stopped and every failed call was retried successfully', () => {
    expect(toolOutcome([{ toolName: 'fetch', ok: true }], 'stop')).toBe('success');
    expect(
      toolOutcome(
        [
          { toolName: 'fetch', ok: false },
          { toolName: 'fetch', ok: true },
        ],
        'stop',
      ),
    ).toBe('success');
  });

  it('fails on a failed call never retried, a retry of another tool, or a finish other than stop', () => {
    expect(toolOutcome([{ toolName: 'fetch', ok: false }], 'stop')).toBe('failure');
    expect(
      toolOutcome(
        [
          { toolName: 'fetch', ok: false },
          { toolName: 'search', ok: true },
        ],
        'stop',
      ),
    ).toBe('failure');
    expect(toolOutcome([{ toolName: 'fetch', ok: true }], 'max_steps')).toBe('failure');
  });

  it('gives no outcome to a turn without tool calls, nor to one handing tool calls to its caller', () => {
    expect(toolOutcome([], 'stop')).toBeUndefined();
    expect(toolOutcome([{ toolName: 'fetch', ok: true }], 'tool_calls')).toBeUndefined();
  });

  it('leaves failed calls out of the sequence and collapses consecutive repeats', () => {
    expect(
      toolSequence([
        { toolName: 'search', ok: true },
        { toolName: 'search', ok: true },
        { toolName: 'fetch', ok: false },
        { toolName: 'fetch', ok: true },
        { toolName: 'search', ok: true },
      ]),
    ).toEqual(['search', 'fetch', 'search']);
  });
});
