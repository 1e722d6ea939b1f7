// Graph templates and conditions: paths into vars, node outputs and the map item, whole-string values vs mixed text,
// every operator, the define-time check of names, and hostile inputs (deep nesting, huge strings, prototype keys).
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors.js';
import { checkCondition, evaluateCondition } from '../../src/graphs/condition.js';
import { GRAPH_LIMITS } from '../../src/graphs/limits.js';
import { checkTemplate, renderTemplate } from '../../src/graphs/template.js';
import type { TemplateScope } from '../../src/graphs/types.js';

const scope: TemplateScope = {
  vars: { topic: 'llamas', count: 3, flag: true, tags: ['a', 'b'], empty: '' },
  nodes: {
    research: {
      output: {
        items: [
          { name: 'first', score: 0.5 },
          { name: 'second', score: 2 },
        ],
        'odd key': 7,
      },
    },
    draft: { output: 'A draft about llamas' },
    none: { output: null },
  },
};

const names = { vars: new Set(['topic', 'count']), nodes: new Set(['research', 'draft']), item: false };

function errorOf(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('renderTemplate', () => {
  it('reads vars, node outputs, array indexes and quoted keys', () => {
    expect(renderTemplate('About {{vars.topic}} x{{ vars.count }}', scope)).toBe('About llamas x3');
    expect(renderTemplate('{{nodes.draft.output}}!', scope)).toBe('A draft about llamas!');
    expect(renderTemplate('{{nodes.research.output.items[1].name}}', scope)).toBe('second');
    expect(renderTemplate('{{nodes.research.output["odd key"]}}', scope)).toBe(7);
  });

  it('yields the value itself for a whole-string template and a string for mixed text', () => {
    const items = renderTemplate('{{nodes.research.output.items}}', scope);
    expect(items).toEqual([
      { name: 'first', score: 0.5 },
      { name: 'second', score: 2 },
    ]);
    expect(renderTemplate('{{vars.count}}', scope)).toBe(3);
    expect(renderTemplate('{{vars.flag}}', scope)).toBe(true);
    expect(renderTemplate('{{nodes.none.output}}', scope)).toBeNull();
    expect(renderTemplate('tags: {{vars.tags}}', scope)).toBe('tags: ["a","b"]');
    expect(renderTemplate(' {{vars.count}}', scope)).toBe(' 3');
    expect(renderTemplate('no placeholders', scope)).toBe('no placeholders');
  });

  it('renders every string of a tree and leaves other leaves as they are', () => {
    const rendered = renderTemplate(
      { query: '{{vars.topic}}', limit: 5, list: ['{{vars.count}}', 'n={{vars.count}}'], nested: { on: false } },
      scope,
    );
    expect(rendered).toEqual({ query: 'llamas', limit: 5, list: [3, 'n=3'], nested: { on: false } });
  });

  it('reads item inside a map', () => {
    const inMap: TemplateScope = { ...scope, item: { name: 'first', score: 0.5 } };
    expect(renderTemplate('Write about {{item.name}}', inMap)).toBe('Write about first');
    expect(renderTemplate('{{item}}', { ...scope, item: 'plain' })).toBe('plain');
  });

  it('a literal {{ can be written as a string expression', () => {
    expect(renderTemplate("{{ '{{' }}name}}", scope)).toBe('{{name}}');
  });

  it('a path missing at run time fails naming the path', () => {
    expect(errorOf(() => renderTemplate('{{nodes.research.output.items[5].name}}', scope)).message).toContain(
      'nodes.research.output.items[5]',
    );
    expect(errorOf(() => renderTemplate('{{vars.nope}}', scope)).message).toContain('vars.nope');
    expect(errorOf(() => renderTemplate('{{item}}', scope)).message).toContain('item');
    expect(errorOf(() => renderTemplate('{{nodes.none.output.x}}', scope)).message).toContain('nodes.none.output.x');
  });

  it('never reaches inherited or prototype properties', () => {
    for (const path of ['vars.__proto__', 'nodes.draft.output.constructor', 'item.prototype', 'vars["__proto__"]']) {
      const error = errorOf(() => renderTemplate(`{{${path}}}`, { ...scope, item: {} }));
      expect(error.kind).toBe('invalid_params');
      expect(error.message).toMatch(/__proto__|constructor|prototype/);
    }
    // Inherited members are not own keys: not found, never a function or the prototype.
    expect(errorOf(() => renderTemplate('{{vars.toString}}', scope)).message).toContain('vars.toString');
    expect(errorOf(() => renderTemplate('{{nodes.draft.output.length}}', scope)).message).toContain(
      'nodes.draft.output.length',
    );
    const parsed: unknown = JSON.parse('{"__proto__": {"polluted": 1}, "ok": 1}');
    expect(errorOf(() => renderTemplate('{{item.__proto__.polluted}}', { ...scope, item: parsed })).kind).toBe(
      'invalid_params',
    );
  });

  it('keeps a __proto__ key of a tree as a plain key, never a prototype', () => {
    const tree: unknown = JSON.parse('{"__proto__": {"polluted": "{{vars.topic}}"}}');
    const rendered = renderTemplate(tree, scope);
    expect(Object.getPrototypeOf(rendered)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(rendered)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('refuses output over maxTemplateOutputChars, mixed or whole', () => {
    const big = 'x'.repeat(GRAPH_LIMITS.maxTemplateOutputChars);
    const bigScope: TemplateScope = { vars: { big, list: [big, big] }, nodes: {} };
    expect(renderTemplate('{{vars.big}}', bigScope)).toBe(big);
    const mixed = errorOf(() => renderTemplate('{{vars.big}}{{vars.big}}', bigScope));
    expect(mixed.kind).toBe('payload_too_large');
    expect(mixed.message).toContain('maxTemplateOutputChars');
    expect(errorOf(() => renderTemplate('{{vars.list}}', bigScope)).kind).toBe('payload_too_large');
    expect(errorOf(() => renderTemplate(['{{vars.big}}', '{{vars.big}}'], bigScope)).kind).toBe('payload_too_large');
  });

  it('refuses deep nesting and huge templates without overflowing the stack', () => {
    const deep = `{{${'('.repeat(10_000)}vars.count${')'.repeat(10_000)}}}`;
    expect(errorOf(() => renderTemplate(deep, scope)).message).toMatch(/too long|nested deeper/);
    const nested = `{{${'('.repeat(GRAPH_LIMITS.maxDepth + 1)}vars.count${')'.repeat(GRAPH_LIMITS.maxDepth + 1)}}}`;
    expect(errorOf(() => renderTemplate(nested, scope)).message).toContain('nested deeper');
    expect(errorOf(() => evaluateCondition('!'.repeat(100_000) + 'vars.flag', scope)).kind).toBe('invalid_params');
    const huge = '{{vars.topic}}'.repeat(GRAPH_LIMITS.maxTemplateChars);
    expect(errorOf(() => renderTemplate(huge, scope)).message).toContain('maxTemplateChars');
    let tree: unknown = '{{vars.topic}}';
    for (let depth = 0; depth < 10_000; depth++) tree = [tree];
    expect(errorOf(() => renderTemplate(tree, scope)).message).toContain('nested deeper');
  });

  it('names the syntax problem', () => {
    expect(errorOf(() => renderTemplate('{{vars.topic', scope)).message).toContain('}}');
    expect(errorOf(() => renderTemplate('{{ }}', scope)).message).toMatch(/empty|expected/i);
    expect(errorOf(() => renderTemplate('{{topic}}', scope)).message).toContain('vars.');
    expect(errorOf(() => renderTemplate('{{vars.topic +}}', scope)).kind).toBe('invalid_params');
    expect(errorOf(() => renderTemplate('{{eval("1")}}', scope)).message).toContain('eval');
  });
});

describe('evaluateCondition', () => {
  it.each([
    ['vars.count == 3', true],
    ['vars.count != 3', false],
    ['vars.count < 4', true],
    ['vars.count <= 3', true],
    ['vars.count > 3', false],
    ['vars.count >= 3.0', true],
    ["vars.topic == 'llamas'", true],
    ['vars.topic == "llamas"', true],
    ["vars.topic < 'm'", true],
    ['vars.flag && vars.count == 3', true],
    ['vars.flag && vars.count == 4', false],
    ['vars.count == 4 || vars.flag', true],
    ['!vars.flag', false],
    ['!(vars.count == 4)', true],
    ['vars.flag == true', true],
    ['nodes.none.output == null', true],
    ['length(vars.tags) == 2', true],
    ['length(nodes.draft.output) > 5', true],
    ['length(nodes.research.output.items) >= 2 && nodes.research.output.items[1].score > 1', true],
    ['vars.empty', false],
    ['vars.tags', true],
    ['vars.count == -3', false],
    ['vars.count == "3"', false],
    ['vars.tags == nodes.research.output.items', false],
    ['false || vars.count > 1 && !vars.flag', false],
  ])('%s → %s', (expression, expected) => {
    expect(evaluateCondition(expression, scope)).toBe(expected);
  });

  it('short-circuits: the right side of a decided && or || is not read', () => {
    expect(evaluateCondition('false && vars.missing', scope)).toBe(false);
    expect(evaluateCondition('true || vars.missing', scope)).toBe(true);
  });

  it('refuses ordering across types and length of a number, naming the operator', () => {
    expect(errorOf(() => evaluateCondition("vars.count < 'x'", scope)).message).toContain('<');
    expect(errorOf(() => evaluateCondition('length(vars.count) == 1', scope)).message).toContain('length');
  });

  it('refuses templates braces and unknown functions in a condition', () => {
    expect(errorOf(() => evaluateCondition('{{vars.flag}}', scope)).message).toContain('{{');
    expect(errorOf(() => evaluateCondition('constructor(1)', scope)).kind).toBe('invalid_params');
    expect(errorOf(() => evaluateCondition('vars.count == 1 == true', scope)).kind).toBe('invalid_params');
  });
});

describe('define-time checks', () => {
  it('lists the node ids a template reads', () => {
    const check = checkTemplate({ q: '{{nodes.research.output.items[0]}} {{nodes.draft.output}}', n: 1 }, names);
    expect(check.issues).toEqual([]);
    expect([...check.nodes].sort()).toEqual(['draft', 'research']);
  });

  it('names an unknown var, an unknown node, item outside a map and a non-output field, with the tree path', () => {
    const check = checkTemplate(
      { a: '{{vars.nope}}', b: ['ok', '{{nodes.ghost.output}}'], c: '{{item.x}}', d: '{{nodes.draft.input}}' },
      names,
    );
    expect(check.issues).toEqual([
      { path: ['a'], message: expect.stringContaining("unknown var 'nope'") },
      { path: ['b', 1], message: expect.stringContaining("unknown node 'ghost'") },
      { path: ['c'], message: expect.stringContaining('item') },
      { path: ['d'], message: expect.stringContaining('output') },
    ]);
  });

  it('accepts item where the names allow it', () => {
    expect(checkTemplate('{{item.name}}', { ...names, item: true }).issues).toEqual([]);
  });

  it('checks a condition the same way', () => {
    expect(checkCondition('nodes.draft.output != "" && vars.count > 1', names)).toEqual({
      issues: [],
      nodes: new Set(['draft']),
    });
    expect(checkCondition('vars.ghost', names).issues).toEqual([
      { path: [], message: expect.stringContaining("unknown var 'ghost'") },
    ]);
    expect(checkCondition('vars.count ==', names).issues[0]?.message).toMatch(/expected/i);
  });
});
