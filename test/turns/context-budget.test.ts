import { describe, expect, it } from 'vitest';
import { fitContext } from '../../src/turns/index.js';
import type { TranscriptMessage } from '../../src/providers/index.js';

const user = (content: string): TranscriptMessage => ({ role: 'user', content, timestamp: 0 });
const assistant = (content: string): TranscriptMessage => ({ role: 'assistant', content, timestamp: 0 });

describe('context budget pre-flight', () => {
  it('keeps everything when it fits', () => {
    const history = [user('hello'), assistant('hi there')];
    const { budget, messages } = fitContext({
      windowCapSource: 'served',
      windowTokens: 1000,
      outputHeadroom: 100,
      system: 'sys',
      history,
      freshTail: [user('next')],
    });
    expect(budget.verdict).toBe('fits');
    expect(budget.keptCount).toBe(2);
    expect(messages.map((message) => message.content)).toEqual(['hello', 'hi there', 'next']);
  });

  it('drops the oldest history first and reports downshifted', () => {
    const history = [user('a'.repeat(400)), assistant('b'.repeat(400)), user('c'.repeat(40))];
    const { budget, messages } = fitContext({
      windowCapSource: 'served',
      windowTokens: 150,
      outputHeadroom: 50,
      system: '',
      history,
      freshTail: [user('now')],
    });
    expect(budget.verdict).toBe('downshifted');
    expect(budget.droppedCount).toBe(2);
    expect(messages.map((message) => message.content)).toEqual(['c'.repeat(40), 'now']);
    expect(budget.assembledInputTokens + budget.outputHeadroom).toBeLessThanOrEqual(150);
  });

  it('never starts the kept history with an orphaned tool result', () => {
    const history: TranscriptMessage[] = [
      { role: 'assistant', content: '', toolCalls: [{ id: '1', name: 'current_time', input: {} }], timestamp: 0 },
      {
        role: 'tool',
        toolCallId: '1',
        toolName: 'current_time',
        content: 'x'.repeat(100),
        isError: false,
        timestamp: 0,
      },
      assistant('done'),
    ];
    const { messages } = fitContext({
      windowCapSource: 'served',
      windowTokens: 60,
      outputHeadroom: 10,
      system: '',
      history,
      freshTail: [user('q')],
    });
    expect(messages[0]?.role).not.toBe('tool');
  });

  it('is exhausted when the message and system prompt alone exceed the window', () => {
    const { budget, messages } = fitContext({
      windowCapSource: 'served',
      windowTokens: 100,
      outputHeadroom: 50,
      system: 's'.repeat(400),
      history: [user('old')],
      freshTail: [user('new')],
    });
    expect(budget.verdict).toBe('exhausted');
    expect(budget.keptCount).toBe(0);
    expect(messages).toEqual([]);
  });
});
