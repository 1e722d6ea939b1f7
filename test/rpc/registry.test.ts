// The method registry: registration fails fast, naming the method; lookups and the sorted list.
import type { MethodDefinition, MethodScope } from '../../src/rpc/types.js';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createRegistry, defineMethod, noParams } from '../../src/rpc/index.js';

const method = (name: string, scope: MethodScope = 'rpc'): MethodDefinition =>
  defineMethod({ name, scope, summary: 's', params: noParams, handler: () => null });

describe('rpc registry', () => {
  it('throws at registration on a duplicate name, naming the method', () => {
    expect(() => createRegistry([method('demo.echo'), method('demo.other'), method('demo.echo', 'admin')])).toThrow(
      "JSON-RPC method 'demo.echo' is declared twice",
    );
  });

  it('throws on a name that is not namespace.method, naming it', () => {
    for (const name of ['echo', 'Demo.echo', 'demo.', '.echo', 'demo echo', 'demo/echo']) {
      expect(() => createRegistry([method(name)])).toThrow(`JSON-RPC method '${name}' must be named namespace.method`);
    }
  });

  it('throws on a missing or unknown scope, naming the method', () => {
    const noScope = {
      name: 'demo.echo',
      summary: 's',
      params: noParams,
      handler: () => null,
    } as unknown as MethodDefinition;
    expect(() => createRegistry([noScope])).toThrow("JSON-RPC method 'demo.echo' has no valid scope");
    const badScope = { ...method('demo.other'), scope: 'root' } as unknown as MethodDefinition;
    expect(() => createRegistry([badScope])).toThrow("JSON-RPC method 'demo.other' has no valid scope");
  });

  it('finds a method by name and lists all of them sorted by name', () => {
    const registry = createRegistry([method('zeta.last'), method('alpha.first'), method('mid.dle.deep')]);
    expect(registry.get('alpha.first')?.name).toBe('alpha.first');
    expect(registry.get('nope.nope')).toBeUndefined();
    expect(registry.list().map((entry) => entry.name)).toEqual(['alpha.first', 'mid.dle.deep', 'zeta.last']);
  });

  it('keeps the params schema of a declaration', () => {
    const params = z.strictObject({ n: z.number() });
    const registry = createRegistry([
      defineMethod({ name: 'demo.square', scope: 'rpc', summary: 's', params, handler: ({ n }) => n * n }),
    ]);
    expect(registry.get('demo.square')?.params).toBe(params);
  });
});
