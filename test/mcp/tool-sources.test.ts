// The tool registry's named sources (mcp:): a list without source entries is answered at once from a cache, one
// with them resolves per turn, and a source's tool runs through the same execute path as a built-in one.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistry, type ToolSource } from '../../src/agents/tools/tool-registry.js';
import { defineTool, type ToolDefinition } from '../../src/agents/tools/types.js';
import { mcpServerUnavailable } from '../../src/errors.js';

const ctx = () => ({
  agentId: 'a',
  sessionKey: 'default:u:c',
  caller: { clientId: 'u', isAdmin: false },
  ownerId: 'u',
  signal: new AbortController().signal,
});

const echo = defineTool({
  name: 'echo',
  description: 'echoes',
  input: z.strictObject({ text: z.string() }),
  execute: async ({ text }) => ({ text }),
});

const schema = {
  type: 'object',
  properties: { q: { type: 'string' } },
  $schema: 'https://json-schema.org/draft/2020-12/schema',
};
const remote: ToolDefinition = defineTool({
  name: 'srv__search',
  description: 'searches',
  input: z.record(z.string(), z.unknown()),
  inputSchema: schema,
  execute: async (input) => `found ${JSON.stringify(input)} and a long tail of text`,
});
const gone: ToolDefinition = defineTool({
  name: 'down__unavailable',
  description: 'Unavailable: down',
  input: z.record(z.string(), z.unknown()),
  inputSchema: { type: 'object', properties: {} },
  unavailable: 'MCP server down is unavailable: refused',
  execute: () => Promise.reject(mcpServerUnavailable('down', 'refused')),
});

function registryWithSource() {
  const resolved: string[] = [];
  const source: ToolSource = {
    knows: (ref) => ref === 'srv' || ref === 'down',
    resolve: async (ref) => {
      resolved.push(ref);
      return ref === 'srv' ? [remote] : [gone];
    },
  };
  const registry = createToolRegistry([echo], { timeoutMs: 1_000, maxResultChars: 20 });
  registry.addSource('mcp', source);
  return { registry, resolved };
}

describe('tool sources', () => {
  it('answers a list without source entries synchronously, the same cached set each time', () => {
    const { registry, resolved } = registryWithSource();
    const tools = ['echo'];
    const first = registry.forTurn(tools);
    expect('then' in first).toBe(false);
    expect(registry.forTurn(tools)).toBe(first);
    if ('then' in first) throw new Error('expected the set itself');
    expect(first.specs).toEqual(registry.specs(['echo']));
    expect(first.unavailable).toEqual([]);
    expect(resolved).toEqual([]);
  });

  it("resolves source entries per turn, offering the source's own JSON Schema", async () => {
    const { registry, resolved } = registryWithSource();
    const tools = ['echo', 'mcp:srv', 'mcp:down'];
    const turn = await registry.forTurn(tools);
    await registry.forTurn(tools);
    expect(resolved).toEqual(['srv', 'down', 'srv', 'down']);
    expect(turn.specs.map((spec) => spec.name)).toEqual(['echo', 'srv__search', 'down__unavailable']);
    expect(turn.specs[1]?.inputSchema).toEqual({ type: 'object', properties: { q: { type: 'string' } } });
    expect(turn.unavailable).toEqual([
      { toolName: 'down__unavailable', reason: 'MCP server down is unavailable: refused' },
    ]);
  });

  it("runs a source's tool through the one execute path: truncation, object check, errors as results", async () => {
    const { registry } = registryWithSource();
    const turn = await registry.forTurn(['mcp:srv', 'mcp:down']);
    const ok = await turn.execute('srv__search', { q: 'x' }, ctx());
    expect(ok).toMatchObject({
      ok: true,
      content: expect.stringMatching(/^found \{"q":"x"\} and … \[truncated \d+ characters\]$/),
    });
    expect(await turn.execute('srv__search', 'not an object', ctx())).toMatchObject({
      ok: false,
      errorKind: 'invalid_input',
    });
    expect(await turn.execute('down__unavailable', {}, ctx())).toMatchObject({
      ok: false,
      errorKind: 'mcp_unavailable',
      content: 'Error: MCP server down is unavailable: refused',
    });
    expect(await turn.execute('echo', { text: 'built-in' }, ctx())).toMatchObject({ ok: true });
  });

  it('knows the entries its sources know, so the start warning names only the rest', () => {
    const { registry } = registryWithSource();
    expect(registry.has('mcp:srv')).toBe(true);
    expect(registry.has('mcp:srv/search')).toBe(false);
    expect(registry.has('mcp:ghost')).toBe(false);
    expect(registry.has('echo')).toBe(true);
  });
});
