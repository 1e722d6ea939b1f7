import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { builtinTools } from '../../src/agents/tools/builtin.js';
import { createToolRegistry } from '../../src/agents/tools/tool-registry.js';
import { defineTool } from '../../src/agents/tools/types.js';

const ctx = () => ({
  agentId: 'a',
  sessionKey: 'default:u:c',
  caller: { clientId: 'u', isAdmin: false },
  ownerId: 'u',
  signal: new AbortController().signal,
});

describe('tool registry', () => {
  const echo = defineTool({
    name: 'echo',
    description: 'echoes',
    input: z.strictObject({ text: z.string() }),
    execute: async ({ text }) => ({ text }),
  });
  const boom = defineTool({
    name: 'boom',
    description: 'fails',
    input: z.strictObject({}),
    execute: async () => {
      throw new Error('kaput');
    },
  });
  const slow = defineTool({
    name: 'slow',
    description: 'never ends',
    input: z.strictObject({}),
    execute: () => new Promise(() => undefined),
  });
  const registry = createToolRegistry([echo, boom, slow], { timeoutMs: 50, maxResultChars: 10 });

  it('refuses a duplicate tool name at construction', () => {
    expect(() => createToolRegistry([echo, echo])).toThrow(/echo/);
  });

  it('gives the model a JSON Schema per named tool and skips unknown names', () => {
    const specs = registry.specs(['echo', 'missing']);
    expect(specs).toHaveLength(1);
    expect(specs[0]?.inputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
  });

  it('returns a successful result with a digest and the full byte count, truncating long content', async () => {
    const outcome = await registry.execute('echo', { text: 'a long piece of text' }, ctx());
    expect(outcome.ok).toBe(true);
    expect(outcome.content).toMatch(/truncated/);
    expect(outcome.resultBytes).toBe(JSON.stringify({ text: 'a long piece of text' }).length);
    expect(outcome.resultDigest).toMatch(/^sha256:[0-9a-f]{16}$/);
  });

  it('turns unknown tools, invalid input, thrown errors and timeouts into error results', async () => {
    expect(await registry.execute('nope', {}, ctx())).toMatchObject({ ok: false, errorKind: 'unknown_tool' });
    expect(await registry.execute('echo', { text: 1 }, ctx())).toMatchObject({ ok: false, errorKind: 'invalid_input' });
    expect(await registry.execute('boom', {}, ctx())).toMatchObject({
      ok: false,
      errorKind: 'failed',
      content: 'Error: kaput',
    });
    expect(await registry.execute('slow', {}, ctx())).toMatchObject({ ok: false, errorKind: 'timeout' });
  });

  it('current_time reports the injected clock', async () => {
    const tools = createToolRegistry(builtinTools({ now: () => Date.UTC(2026, 0, 2) }));
    const outcome = await tools.execute('current_time', {}, ctx());
    expect(JSON.parse(outcome.content)).toEqual({ iso: '2026-01-02T00:00:00.000Z', epochMs: Date.UTC(2026, 0, 2) });
  });
});
