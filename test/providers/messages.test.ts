// Our transcript to the AI SDK prompt: system text, tool calls, grouped tool results, tools without execute.
import { describe, expect, it } from 'vitest';
import { toModelPrompt, toToolSet } from '../../src/providers/messages.js';

describe('transcript to model prompt', () => {
  it('joins transcript system messages into the system prompt', () => {
    const prompt = toModelPrompt('Base prompt.', [
      { role: 'system', content: 'Earlier summary.', timestamp: 0 },
      { role: 'user', content: 'hi', timestamp: 1 },
    ]);
    expect(prompt).toEqual({ system: 'Base prompt.\n\nEarlier summary.', messages: [{ role: 'user', content: 'hi' }] });
    expect(toModelPrompt('', []).system).toBeUndefined();
  });

  it('turns assistant tool calls into tool-call parts and groups consecutive tool results', () => {
    const { messages } = toModelPrompt('', [
      { role: 'user', content: 'go', timestamp: 0 },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'a', input: { x: 1 } }, { id: 'c2', name: 'b', input: {} }], timestamp: 1 },
      { role: 'tool', toolCallId: 'c1', toolName: 'a', content: 'done', isError: false, timestamp: 2 },
      { role: 'tool', toolCallId: 'c2', toolName: 'b', content: 'boom', isError: true, timestamp: 3 },
      { role: 'assistant', content: 'All done.', timestamp: 4 },
    ]);
    expect(messages).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'a', input: { x: 1 } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'b', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'a', output: { type: 'text', value: 'done' } },
          { type: 'tool-result', toolCallId: 'c2', toolName: 'b', output: { type: 'error-text', value: 'boom' } },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'All done.' }] },
    ]);
  });

  it('drops an assistant message with neither text nor tool calls', () => {
    const { messages } = toModelPrompt('', [
      { role: 'user', content: 'a', timestamp: 0 },
      { role: 'assistant', content: '', timestamp: 1 },
      { role: 'user', content: 'b', timestamp: 2 },
    ]);
    expect(messages.map((message) => message.role)).toEqual(['user', 'user']);
  });

  it('declares tools without execute, so the SDK never runs them', () => {
    expect(toToolSet([])).toBeUndefined();
    const tools = toToolSet([{ name: 'memory_search', description: 'Search memory', inputSchema: { type: 'object', properties: {} } }]);
    expect(Object.keys(tools ?? {})).toEqual(['memory_search']);
    expect(tools?.memory_search?.execute).toBeUndefined();
    expect(tools?.memory_search?.description).toBe('Search memory');
  });
});
