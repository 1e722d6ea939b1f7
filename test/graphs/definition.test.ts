// Graph definitions at define time: a valid four-node graph (agent → map → tool → approval), and each refusal naming
// its path — cycle, unknown need, agent and tool, bad template, duplicate id, the caps, deep and huge definitions.
import { describe, expect, it } from 'vitest';
import { graphDefinitionInvalid, graphNotFound, graphRunNotFound } from '../../src/errors.js';
import { validateDefinition } from '../../src/graphs/definition.js';
import { GRAPH_LIMITS } from '../../src/graphs/limits.js';
import type { DefinitionIssue } from '../../src/graphs/types.js';

const context = {
  hasAgent: (id: string) => ['researcher', 'writer'].includes(id),
  hasTool: (name: string) => ['web_search', 'publish'].includes(name),
};

function fourNodes(): Record<string, unknown> & { nodes: Record<string, unknown>[] } {
  return {
    name: 'research-publish',
    description: 'Research a topic, draft each angle, publish, then ask an operator',
    vars: { topic: { type: 'string', default: 'llamas' }, count: { type: 'number' } },
    nodes: [
      { id: 'research', type: 'agent', agentId: 'researcher', message: 'List angles on {{vars.topic}} as JSON' },
      {
        id: 'drafts',
        type: 'map',
        needs: ['research'],
        over: '{{nodes.research.output}}',
        concurrency: 2,
        node: { type: 'agent', agentId: 'writer', message: 'Draft {{item}} for {{vars.topic}}', when: 'item != ""' },
      },
      {
        id: 'publish',
        type: 'tool',
        needs: ['drafts'],
        tool: 'publish',
        args: { items: '{{nodes.drafts.output}}', meta: { title: 'On {{vars.topic}}', n: 3 } },
        retries: 2,
        timeoutMs: 30_000,
      },
      {
        id: 'approve',
        type: 'approval',
        needs: ['publish'],
        summary: 'Publish {{length(nodes.drafts.output)}} drafts about {{vars.topic}}?',
        when: 'length(nodes.drafts.output) > 0 && nodes.research.output != null',
      },
    ],
    output: '{{nodes.publish.output}}',
  };
}

function issuesOf(input: unknown): DefinitionIssue[] {
  const result = validateDefinition(input, context);
  if (result.ok) throw new Error('expected the definition to be refused');
  return result.issues;
}

function withNode(index: number, patch: Record<string, unknown>): Record<string, unknown> {
  const definition = fourNodes();
  definition.nodes[index] = { ...definition.nodes[index], ...patch };
  return definition;
}

describe('validateDefinition', () => {
  it('accepts the four-node graph and fills the defaults', () => {
    const result = validateDefinition(fourNodes(), context);
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const [research, drafts, publish, approve] = result.definition.nodes;
    expect(research).toEqual({
      id: 'research',
      type: 'agent',
      agentId: 'researcher',
      message: 'List angles on {{vars.topic}} as JSON',
      needs: [],
      retries: 0,
    });
    expect(drafts).toMatchObject({
      type: 'map',
      concurrency: 2,
      node: { type: 'agent', agentId: 'writer', retries: 0 },
    });
    expect(publish).toMatchObject({ retries: 2, timeoutMs: 30_000, args: { meta: { n: 3 } } });
    expect(approve?.when).toContain('length(');
    expect(result.definition.vars['topic']).toEqual({ type: 'string', default: 'llamas' });
    expect(result.definition.output).toBe('{{nodes.publish.output}}');
  });

  it('names a cycle and the need that closes it', () => {
    const definition = {
      name: 'loop',
      nodes: [
        { id: 'a', type: 'approval', summary: 'a', needs: ['c'] },
        { id: 'b', type: 'approval', summary: 'b', needs: ['a'] },
        { id: 'c', type: 'approval', summary: 'c', needs: ['b'] },
      ],
    };
    expect(issuesOf(definition)).toEqual([
      { path: 'nodes[1].needs[0]', message: expect.stringContaining('a → c → b → a') },
    ]);
    const self = { name: 'self', nodes: [{ id: 'a', type: 'approval', summary: 'a', needs: ['a'] }] };
    expect(issuesOf(self)).toEqual([{ path: 'nodes[0].needs[0]', message: expect.stringContaining('a → a') }]);
  });

  it('refuses an unknown need, agent and tool, naming each path', () => {
    expect(issuesOf(withNode(1, { needs: ['ghost'] }))).toContainEqual({
      path: 'nodes[1].needs[0]',
      message: expect.stringContaining("unknown node 'ghost'"),
    });
    expect(issuesOf(withNode(0, { agentId: 'nobody' }))).toEqual([
      { path: 'nodes[0].agentId', message: expect.stringContaining("unknown agent 'nobody'") },
    ]);
    const subNode = { type: 'tool', tool: 'rm_rf', args: { q: '{{item}}' } };
    expect(issuesOf(withNode(1, { node: subNode }))).toEqual([
      { path: 'nodes[1].node.tool', message: expect.stringContaining("unknown tool 'rm_rf'") },
    ]);
    expect(issuesOf(withNode(2, { tool: 'shell' }))).toEqual([
      { path: 'nodes[2].tool', message: expect.stringContaining("unknown tool 'shell'") },
    ]);
  });

  it('refuses a bad template or condition, naming the field and the path inside args', () => {
    expect(issuesOf(withNode(0, { message: 'About {{vars.topic' }))).toEqual([
      { path: 'nodes[0].message', message: expect.stringContaining('}}') },
    ]);
    expect(issuesOf(withNode(2, { args: { meta: { title: '{{vars.ghost}}' } } }))).toEqual([
      { path: 'nodes[2].args.meta.title', message: expect.stringContaining("unknown var 'ghost'") },
    ]);
    expect(issuesOf(withNode(3, { when: 'nodes.publish.output ==' }))).toEqual([
      { path: 'nodes[3].when', message: expect.stringMatching(/expected/i) },
    ]);
    expect(issuesOf(withNode(3, { summary: 'Item {{item}}' }))).toEqual([
      { path: 'nodes[3].summary', message: expect.stringContaining('map') },
    ]);
    expect(issuesOf({ ...fourNodes(), output: '{{nodes.nowhere.output}}' })).toEqual([
      { path: 'output', message: expect.stringContaining("unknown node 'nowhere'") },
    ]);
  });

  it('refuses a template that reads a node outside its needs', () => {
    // With drafts needing nothing, research is no longer reached from drafts, nor (through it) from approve.
    expect(issuesOf(withNode(1, { needs: [] }))).toEqual([
      { path: 'nodes[1].over', message: expect.stringContaining("'research' is not among its needs") },
      { path: 'nodes[3].when', message: expect.stringContaining("'research' is not among its needs") },
    ]);
    // Through a need of a need is fine: approve needs publish, which needs drafts, which needs research.
    expect(validateDefinition(fourNodes(), context).ok).toBe(true);
  });

  it('refuses a duplicate id, an unknown type, an unknown key and a default of the wrong type', () => {
    expect(issuesOf(withNode(1, { id: 'research' }))).toContainEqual({
      path: 'nodes[1].id',
      message: expect.stringContaining("duplicate id 'research' (also nodes[0])"),
    });
    expect(issuesOf(withNode(2, { type: 'shell' }))).toEqual([
      { path: 'nodes[2].type', message: expect.stringContaining('agent') },
    ]);
    expect(issuesOf(withNode(0, { agent: 'researcher' }))).toEqual([
      { path: 'nodes[0].agent', message: expect.stringContaining('unknown key') },
    ]);
    expect(issuesOf({ ...fourNodes(), vars: { topic: { type: 'number', default: 'x' } } })).toContainEqual({
      path: 'vars.topic.default',
      message: expect.stringContaining('number'),
    });
    expect(issuesOf({ ...fourNodes(), name: '../etc' })).toEqual([{ path: 'name', message: expect.any(String) }]);
    expect(issuesOf('not a definition')).toEqual([{ path: '', message: expect.any(String) }]);
  });

  it('refuses a definition over the caps, naming the limit', () => {
    const nodes = Array.from({ length: GRAPH_LIMITS.maxNodes + 1 }, (_, index) => ({
      id: `n${index}`,
      type: 'approval',
      summary: 'ok?',
    }));
    expect(issuesOf({ name: 'wide', nodes })).toEqual([{ path: 'nodes', message: expect.stringContaining('64') }]);
    expect(issuesOf(withNode(1, { concurrency: GRAPH_LIMITS.maxMapConcurrency + 1 }))).toEqual([
      { path: 'nodes[1].concurrency', message: expect.stringContaining(String(GRAPH_LIMITS.maxMapConcurrency)) },
    ]);
    expect(issuesOf(withNode(0, { retries: GRAPH_LIMITS.maxRetries + 1 }))).toEqual([
      { path: 'nodes[0].retries', message: expect.any(String) },
    ]);
    expect(issuesOf(withNode(0, { timeoutMs: GRAPH_LIMITS.maxNodeTimeoutMs + 1 }))).toEqual([
      { path: 'nodes[0].timeoutMs', message: expect.any(String) },
    ]);
  });

  it('refuses deep and huge definitions before parsing them, naming where', () => {
    let args: unknown = 'leaf';
    for (let depth = 0; depth < 100_000; depth++) args = { a: args };
    const deep = issuesOf(withNode(2, { args }));
    expect(deep).toHaveLength(1);
    expect(deep[0]?.path).toMatch(/^nodes\[2\]\.args(\.a)+$/);
    expect(deep[0]?.message).toContain('maxDepth');

    const huge = issuesOf(withNode(0, { message: 'x'.repeat(GRAPH_LIMITS.maxDefinitionBytes) }));
    expect(huge).toEqual([{ path: 'nodes[0].message', message: expect.stringContaining('maxDefinitionBytes') }]);
    const wide = issuesOf({ name: 'wide', nodes: Array.from({ length: 1_000_000 }, () => 1) });
    expect(wide[0]?.message).toContain('maxDefinitionBytes');
  });

  it('refuses a __proto__ key anywhere and never pollutes a prototype', () => {
    const args: unknown = JSON.parse('{"q": {"__proto__": {"polluted": "yes"}}}');
    expect(issuesOf(withNode(2, { args }))).toEqual([
      { path: 'nodes[2].args.q.__proto__', message: expect.stringContaining('__proto__') },
    ]);
    const vars: unknown = JSON.parse('{"__proto__": {"type": "string"}}');
    expect(issuesOf({ ...fourNodes(), vars })).toEqual([
      { path: 'vars.__proto__', message: expect.stringContaining('__proto__') },
    ]);
    expect(issuesOf({ ...fourNodes(), vars: { constructor: { type: 'string' } } })).toContainEqual({
      path: 'vars.constructor',
      message: expect.any(String),
    });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('answers a refused definition as invalid params naming the first path, every issue in the details', () => {
    const issues = issuesOf(withNode(1, { needs: ['ghost'], concurrency: 2 }));
    const error = graphDefinitionInvalid(issues);
    expect(error.kind).toBe('invalid_params');
    expect(error.message).toContain('nodes[1].needs[0]');
    expect(error.details).toEqual({ param: 'nodes[1].needs[0]', issues });
    expect(graphNotFound('publish')).toMatchObject({ kind: 'not_found', details: { param: 'name' } });
    expect(graphRunNotFound('r1', 'resumeFrom')).toMatchObject({ kind: 'not_found', details: { param: 'resumeFrom' } });
  });
});
