// The MemoryPort conformance suite: every backend (and every vector lane of one) runs these same cases on a fresh port.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashingVector } from '../../src/providers/index.js';
import type { EmbeddingVector, MemoryPort, NewMemoryEntry } from '../../src/store/index.js';
import type { PortFixture } from './port-fixture.js';

export interface MemoryFixtureOptions {
  /** The embedding cache's cap; the backend evicts exactly down to it (no batch slack) for these cases. */
  embeddingCacheMaxEntries?: number;
  /** The embedding cache's clock. */
  now?: () => number;
}

const T0 = 1_700_000_000_000;

export function memoryEntry(id: string, fields: Partial<NewMemoryEntry> = {}): NewMemoryEntry {
  return {
    id,
    tenantId: 'tenant-a',
    agentId: 'agent-1',
    content: `entry ${id}`,
    memoryType: 'fact',
    trustLevel: 'trusted',
    sourceSessionKey: null,
    ownerId: null,
    createdAt: T0,
    metadata: {},
    derivedFrom: [],
    ...fields,
  };
}

export function vector(model: string, ...values: number[]): EmbeddingVector {
  return { model, values: Float32Array.from(values) };
}

const HASHING = 'hashing-256';
const hashed = (text: string): EmbeddingVector => ({
  model: HASHING,
  values: Float32Array.from(hashingVector(text, 256)),
});

export function memoryPortCases(
  backend: string,
  open: (options?: MemoryFixtureOptions) => Promise<PortFixture<MemoryPort>>,
): void {
  describe(`MemoryPort conformance (${backend})`, () => {
    let fixture: PortFixture<MemoryPort>;
    let memory: MemoryPort;
    beforeEach(async () => {
      fixture = await open();
      memory = fixture.port;
    });
    afterEach(async () => {
      await fixture.close();
    });

    describe('entries', () => {
      it('returns the inserted entry, active and never recalled, to its tenant and to admin reads only', async () => {
        const stored = await memory.insert(memoryEntry('m1', { metadata: { topic: 'tea' }, sourceSessionKey: 's1' }));
        const expected = {
          ...memoryEntry('m1', { metadata: { topic: 'tea' }, sourceSessionKey: 's1' }),
          lastRecalledAt: null,
          recallCount: 0,
          status: 'active',
        };
        expect(stored).toEqual(expected);
        expect(await memory.get('m1', { tenantId: 'tenant-a' })).toEqual(expected);
        expect(await memory.get('m1', { tenantId: 'tenant-a', agentId: 'agent-1' })).toEqual(expected);
        expect(await memory.get('m1', {})).toEqual(expected);
        expect(await memory.get('m1', { tenantId: 'tenant-b' })).toBeUndefined();
        expect(await memory.get('m1', { tenantId: 'tenant-a', agentId: 'agent-2' })).toBeUndefined();
        expect(await memory.get('unknown', {})).toBeUndefined();
      });

      it('refuses a second entry with the same id', async () => {
        await memory.insert(memoryEntry('m1'));
        await expect(memory.insert(memoryEntry('m1', { tenantId: 'tenant-b' }))).rejects.toThrow();
        expect((await memory.get('m1', {}))?.tenantId).toBe('tenant-a');
      });

      it('getMany keeps the order of the ids and leaves out unknown and out-of-scope ones', async () => {
        await memory.insert(memoryEntry('m1'));
        await memory.insert(memoryEntry('m2'));
        await memory.insert(memoryEntry('b1', { tenantId: 'tenant-b' }));
        const found = await memory.getMany(['m2', 'b1', 'nope', 'm1'], { tenantId: 'tenant-a' });
        expect(found.map((entry) => entry.id)).toEqual(['m2', 'm1']);
        expect((await memory.getMany(['m2', 'b1'], {})).map((entry) => entry.id)).toEqual(['m2', 'b1']);
        expect(await memory.getMany([], { tenantId: 'tenant-a' })).toEqual([]);
      });

      it('links an observation to its sources, and refuses sources of another tenant or agent', async () => {
        await memory.insert(memoryEntry('m1'));
        await memory.insert(memoryEntry('m2'));
        await memory.insert(memoryEntry('b1', { tenantId: 'tenant-b' }));
        await memory.insert(memoryEntry('x1', { agentId: 'agent-2' }));
        const observation = await memory.insert(
          memoryEntry('o1', { memoryType: 'observation', derivedFrom: ['m2', 'm1'] }),
        );
        expect(observation.derivedFrom).toEqual(['m2', 'm1']);
        expect((await memory.get('o1', { tenantId: 'tenant-a' }))?.derivedFrom).toEqual(['m2', 'm1']);
        await expect(
          memory.insert(memoryEntry('o2', { memoryType: 'observation', derivedFrom: ['m1', 'b1'] })),
        ).rejects.toThrow();
        await expect(
          memory.insert(memoryEntry('o3', { memoryType: 'observation', derivedFrom: ['x1'] })),
        ).rejects.toThrow();
        await expect(memory.insert(memoryEntry('f1', { derivedFrom: ['m1'] }))).rejects.toThrow();
        expect(await memory.getMany(['o2', 'o3', 'f1'], {})).toEqual([]);
      });

      it('browses newest first within the filter, with the total', async () => {
        for (let index = 0; index < 5; index += 1)
          await memory.insert(memoryEntry(`m${index}`, { createdAt: T0 + index }));
        await memory.insert(memoryEntry('b1', { tenantId: 'tenant-b', createdAt: T0 + 100 }));
        await memory.insert(memoryEntry('p1', { memoryType: 'preference', createdAt: T0 + 50 }));
        const page = await memory.browse({ tenantId: 'tenant-a' }, { offset: 1, limit: 3 });
        expect(page.total).toBe(6);
        expect(page.entries.map((entry) => entry.id)).toEqual(['m4', 'm3', 'm2']);
        expect(
          (
            await memory.browse({ tenantId: 'tenant-a', memoryType: 'preference' }, { offset: 0, limit: 10 })
          ).entries.map((entry) => entry.id),
        ).toEqual(['p1']);
        const all = await memory.browse({}, { offset: 0, limit: 2 });
        expect(all).toMatchObject({ total: 7 });
        expect(all.entries.map((entry) => entry.id)).toEqual(['b1', 'p1']);
      });

      it('deletes an entry only within the scope', async () => {
        await memory.insert(memoryEntry('m1', { content: 'the garden gate is green' }), vector('v', 1, 0));
        expect(await memory.delete('m1', { tenantId: 'tenant-b' })).toBe(false);
        expect(await memory.delete('m1', { tenantId: 'tenant-a', agentId: 'agent-2' })).toBe(false);
        expect(await memory.get('m1', {})).toBeDefined();
        expect(await memory.delete('m1', { tenantId: 'tenant-a' })).toBe(true);
        expect(await memory.delete('m1', { tenantId: 'tenant-a' })).toBe(false);
        expect(await memory.get('m1', {})).toBeUndefined();
        expect(await memory.searchLexical('garden', {}, 10)).toEqual([]);
        expect(await memory.searchVector(vector('v', 1, 0), {}, 10)).toEqual([]);
      });
    });

    describe('lexical lane', () => {
      it('ranks entries matching more of the words first, with positive scores and ranks from 1', async () => {
        await memory.insert(memoryEntry('both', { content: 'Alice prefers green tea in the morning' }));
        await memory.insert(memoryEntry('one', { content: 'Bob drinks coffee in the morning' }));
        await memory.insert(memoryEntry('none', { content: 'The weather is cold' }));
        const hits = await memory.searchLexical('green tea?', { tenantId: 'tenant-a' }, 10);
        expect(hits.map((hit) => hit.id)).toEqual(['both']);
        const ranked = await memory.searchLexical('morning tea', { tenantId: 'tenant-a' }, 10);
        expect(ranked.map((hit) => [hit.id, hit.rank])).toEqual([
          ['both', 1],
          ['one', 2],
        ]);
        expect(ranked[0]?.score).toBeGreaterThan(ranked[1]?.score ?? Infinity);
        expect(ranked[1]?.score).toBeGreaterThan(0);
      });

      it('answers [] for a query without a searchable word, and takes FTS syntax as plain words', async () => {
        await memory.insert(memoryEntry('m1', { content: 'NEAR the "quoted" AND OR tea' }));
        expect(await memory.searchLexical('?! ...', {}, 10)).toEqual([]);
        expect((await memory.searchLexical('AND NEAR(" tea', {}, 10)).map((hit) => hit.id)).toEqual(['m1']);
      });

      it("never returns another tenant's or agent's entry, however well it matches", async () => {
        for (let index = 0; index < 50; index += 1) {
          await memory.insert(memoryEntry(`b${index}`, { tenantId: 'tenant-b', content: 'zebra zebra zebra' }));
        }
        for (let index = 0; index < 3; index += 1) {
          await memory.insert(
            memoryEntry(`a${index}`, { content: `the zebra crossed a long road past many houses and shops ${index}` }),
          );
        }
        await memory.insert(memoryEntry('other-agent', { agentId: 'agent-2', content: 'zebra zebra' }));
        const hits = await memory.searchLexical('zebra', { tenantId: 'tenant-a', agentId: 'agent-1' }, 3);
        expect(hits.map((hit) => hit.id).sort()).toEqual(['a0', 'a1', 'a2']);
        expect((await memory.searchLexical('zebra', { tenantId: 'tenant-a' }, 1)).map((hit) => hit.id)).toEqual([
          'other-agent',
        ]);
        expect(await memory.searchLexical('zebra', { tenantId: 'tenant-c' }, 10)).toEqual([]);
        expect(await memory.searchLexical('zebra', {}, 100)).toHaveLength(54);
      });

      it('applies the type, trust and status filters inside the query', async () => {
        for (let index = 0; index < 20; index += 1) {
          await memory.insert(memoryEntry(`f${index}`, { content: 'lemon lemon lemon' }));
        }
        await memory.insert(
          memoryEntry('pref', {
            memoryType: 'preference',
            content: 'a lemon now and then, with other words around it',
          }),
        );
        await memory.insert(
          memoryEntry('tool', {
            trustLevel: 'untrusted',
            content: 'a lemon from a web page, with other words around it',
          }),
        );
        const scope = { tenantId: 'tenant-a' };
        expect(
          (await memory.searchLexical('lemon', { ...scope, memoryType: 'preference' }, 1)).map((hit) => hit.id),
        ).toEqual(['pref']);
        expect(
          (await memory.searchLexical('lemon', { ...scope, trustLevel: 'untrusted' }, 1)).map((hit) => hit.id),
        ).toEqual(['tool']);
        expect(await memory.searchLexical('lemon', { ...scope, status: 'demoted' }, 5)).toEqual([]);
      });

      it('refuses an aborted search', async () => {
        await expect(memory.searchLexical('tea', {}, 5, AbortSignal.abort())).rejects.toThrow();
      });
    });

    describe('vector lane', () => {
      it('ranks by cosine similarity, best first, the score being the similarity', async () => {
        await memory.insert(memoryEntry('same'), vector('m', 1, 0, 0));
        await memory.insert(memoryEntry('near'), vector('m', 1, 1, 0));
        await memory.insert(memoryEntry('away'), vector('m', 0, 0, 1));
        const hits = await memory.searchVector(vector('m', 2, 0, 0), { tenantId: 'tenant-a' }, 10);
        expect(hits.map((hit) => [hit.id, hit.rank])).toEqual([
          ['same', 1],
          ['near', 2],
          ['away', 3],
        ]);
        expect(hits[0]?.score).toBeCloseTo(1, 5);
        expect(hits[1]?.score).toBeCloseTo(Math.SQRT1_2, 5);
        expect(hits[2]?.score).toBeCloseTo(0, 5);
        expect((await memory.searchVector(vector('m', 1, 0, 0), {}, 2)).map((hit) => hit.id)).toEqual(['same', 'near']);
      });

      it("fills the limit from the caller's tenant even when another tenant's entries match better", async () => {
        for (let index = 0; index < 50; index += 1) {
          await memory.insert(memoryEntry(`b${index}`, { tenantId: 'tenant-b' }), vector('m', 1, index / 1000, 0, 0));
        }
        for (let index = 0; index < 3; index += 1)
          await memory.insert(memoryEntry(`a${index}`), vector('m', 1, 1 + index, 0, 0));
        await memory.insert(memoryEntry('other-agent', { agentId: 'agent-2' }), vector('m', 1, 0, 0, 0));
        const query = vector('m', 1, 0, 0, 0);
        const hits = await memory.searchVector(query, { tenantId: 'tenant-a', agentId: 'agent-1' }, 3);
        expect(hits.map((hit) => hit.id)).toEqual(['a0', 'a1', 'a2']);
        expect((await memory.searchVector(query, { tenantId: 'tenant-a' }, 1)).map((hit) => hit.id)).toEqual([
          'other-agent',
        ]);
        expect(await memory.searchVector(query, { tenantId: 'tenant-c' }, 3)).toEqual([]);
        expect(
          (await memory.searchVector(query, { tenantId: 'tenant-b' }, 100)).every((hit) => hit.id.startsWith('b')),
        ).toBe(true);
      });

      it('applies the type, trust and status filters inside the query', async () => {
        for (let index = 0; index < 20; index += 1) await memory.insert(memoryEntry(`f${index}`), vector('m', 1, 0));
        await memory.insert(memoryEntry('pref', { memoryType: 'preference' }), vector('m', 1, 1));
        await memory.insert(memoryEntry('tool', { trustLevel: 'untrusted' }), vector('m', 1, 2));
        const scope = { tenantId: 'tenant-a' };
        const query = vector('m', 1, 0);
        expect(
          (await memory.searchVector(query, { ...scope, memoryType: 'preference' }, 1)).map((hit) => hit.id),
        ).toEqual(['pref']);
        expect(
          (await memory.searchVector(query, { ...scope, trustLevel: 'untrusted' }, 1)).map((hit) => hit.id),
        ).toEqual(['tool']);
        expect(await memory.searchVector(query, { ...scope, status: 'demoted' }, 5)).toEqual([]);
      });

      it('compares only vectors of the same model and dimension', async () => {
        await memory.insert(memoryEntry('m-3'), vector('model-a', 1, 0, 0));
        await memory.insert(memoryEntry('m-4'), vector('model-a', 1, 0, 0, 0));
        await memory.insert(memoryEntry('other'), vector('model-b', 1, 0, 0));
        await memory.insert(memoryEntry('plain'));
        expect((await memory.searchVector(vector('model-a', 1, 0, 0), {}, 10)).map((hit) => hit.id)).toEqual(['m-3']);
        expect((await memory.searchVector(vector('model-a', 1, 0, 0, 0), {}, 10)).map((hit) => hit.id)).toEqual([
          'm-4',
        ]);
        expect((await memory.searchVector(vector('model-b', 1, 0, 0), {}, 10)).map((hit) => hit.id)).toEqual(['other']);
        expect(await memory.searchVector(vector('model-c', 1, 0, 0), {}, 10)).toEqual([]);
        expect(await memory.searchVector(vector('model-b', 1, 0), {}, 10)).toEqual([]);
      });

      it('lists entries without a vector of a model, oldest first, and replaces a vector of another model', async () => {
        await memory.insert(memoryEntry('old', { createdAt: T0, content: 'old words' }), vector('model-a', 1, 0));
        await memory.insert(memoryEntry('new', { createdAt: T0 + 1, content: 'new words' }));
        await memory.insert(memoryEntry('done', { createdAt: T0 + 2 }), vector('model-b', 1, 0, 0));
        expect(await memory.withoutVector('model-b', 10)).toEqual([
          { id: 'old', content: 'old words' },
          { id: 'new', content: 'new words' },
        ]);
        expect(await memory.withoutVector('model-b', 1)).toEqual([{ id: 'old', content: 'old words' }]);
        await memory.setVector('old', vector('model-b', 0, 1, 0));
        await memory.setVector('gone', vector('model-b', 0, 1, 0));
        expect(await memory.withoutVector('model-b', 10)).toEqual([{ id: 'new', content: 'new words' }]);
        expect(await memory.searchVector(vector('model-a', 1, 0), {}, 10)).toEqual([]);
        expect((await memory.searchVector(vector('model-b', 0, 1, 0), {}, 10)).map((hit) => hit.id)).toEqual([
          'old',
          'done',
        ]);
        expect((await memory.stats({})).vectorsByModel).toEqual({ 'model-b': 2 });
      });

      it('finds paraphrases by the hashing embedder, in scope only', async () => {
        await memory.insert(memoryEntry('tea', { content: 'Alice likes green tea' }), hashed('Alice likes green tea'));
        await memory.insert(memoryEntry('car', { content: 'Bob drives a red car' }), hashed('Bob drives a red car'));
        await memory.insert(memoryEntry('b-tea', { tenantId: 'tenant-b', content: 'green tea' }), hashed('green tea'));
        const hits = await memory.searchVector(hashed('what tea does Alice like'), { tenantId: 'tenant-a' }, 10);
        expect(hits[0]?.id).toBe('tea');
        expect(hits.map((hit) => hit.id)).not.toContain('b-tea');
      });

      it('refuses an aborted search', async () => {
        await expect(memory.searchVector(vector('m', 1), {}, 5, AbortSignal.abort())).rejects.toThrow();
      });
    });

    describe('deleting by source session (session.reset_conversation rule 4)', () => {
      beforeEach(async () => {
        await memory.insert(
          memoryEntry('s1-a', { sourceSessionKey: 's1', content: 'first session fact' }),
          vector('m', 1, 0),
        );
        await memory.insert(memoryEntry('s1-b', { sourceSessionKey: 's1' }), vector('m', 1, 1));
        await memory.insert(memoryEntry('s2-a', { sourceSessionKey: 's2' }), vector('m', 0, 1));
        await memory.insert(memoryEntry('only-s1', { memoryType: 'observation', derivedFrom: ['s1-a', 's1-b'] }));
        await memory.insert(memoryEntry('mixed', { memoryType: 'observation', derivedFrom: ['s1-a', 's2-a'] }));
        await memory.insert(memoryEntry('only-s2', { memoryType: 'observation', derivedFrom: ['s2-a'] }));
        await memory.insert(memoryEntry('b-s1', { tenantId: 'tenant-b', sourceSessionKey: 's1' }));
        await memory.insert(memoryEntry('agent2-s1', { agentId: 'agent-2', sourceSessionKey: 's1' }));
      });

      it("deletes the session's entries in scope, unlinks them, and deletes observations left with no source", async () => {
        const scope = { tenantId: 'tenant-a', agentId: 'agent-1' };
        expect(await memory.deleteBySource('s1', scope, { purgeDerived: false })).toBe(3);
        const left = await memory.getMany(
          ['s1-a', 's1-b', 's2-a', 'only-s1', 'mixed', 'only-s2', 'b-s1', 'agent2-s1'],
          {},
        );
        expect(left.map((entry) => entry.id)).toEqual(['s2-a', 'mixed', 'only-s2', 'b-s1', 'agent2-s1']);
        expect(left.find((entry) => entry.id === 'mixed')?.derivedFrom).toEqual(['s2-a']);
        expect(await memory.searchLexical('first session', {}, 10)).toEqual([]);
        expect((await memory.searchVector(vector('m', 1, 0), scope, 10)).map((hit) => hit.id)).toEqual(['s2-a']);
        expect(await memory.deleteBySource('s1', scope, { purgeDerived: false })).toBe(0);
      });

      it('with purgeDerived, deletes every observation in scope, even those backed by other sessions', async () => {
        expect(
          await memory.deleteBySource('s1', { tenantId: 'tenant-a', agentId: 'agent-1' }, { purgeDerived: true }),
        ).toBe(5);
        const left = await memory.browse({}, { offset: 0, limit: 20 });
        expect(left.entries.map((entry) => entry.id).sort()).toEqual(['agent2-s1', 'b-s1', 's2-a']);
      });

      it("never touches another tenant's entries", async () => {
        expect(await memory.deleteBySource('s1', { tenantId: 'tenant-b' }, { purgeDerived: true })).toBe(1);
        expect((await memory.stats({ tenantId: 'tenant-a' })).totalEntries).toBe(7);
      });
    });

    describe('owners (issue 30: a memory belongs to the token whose session learned it)', () => {
      /** Token A, given no tenant, reads its own entries; token C, given tenant-b, reads its own and all of tenant-b's. */
      const A = { ownerId: 'tok-a', tenantIds: [] };
      const C = { ownerId: 'tok-c', tenantIds: ['tenant-b'] };
      const ids = (hits: readonly { id: string }[]) => hits.map((hit) => hit.id).sort();

      /**
       * In tenant-a/agent-1: A's two entries, B's `count` look-alikes (better matches than A's), an operator's entry; in
       * tenant-b: one of B's; in tenant-c: one of A's. `count` and `extraOwn` decide whether A holds a small or a large part
       * of the store (the SQLite lexical lane narrows by scope tokens only for a small one).
       */
      async function seed(count: number, extraOwn = 0): Promise<void> {
        // Entries of A that match no query here and have no vector: they only make A's share of the store larger.
        for (let index = 0; index < extraOwn; index += 1)
          await memory.insert(memoryEntry(`ax${index}`, { ownerId: 'tok-a', content: `unrelated note ${index}` }));
        await memory.insert(
          memoryEntry('a1', {
            ownerId: 'tok-a',
            content: 'the harbour ferry leaves at nine',
            sourceSessionKey: 'tenant-a:tok-a:chat',
          }),
          vector('m', 1, 0.5, 0),
        );
        await memory.insert(
          memoryEntry('a2', { ownerId: 'tok-a', content: 'ferry tickets are in the blue drawer' }),
          vector('m', 1, 0.6, 0),
        );
        for (let index = 0; index < count; index += 1) {
          await memory.insert(
            memoryEntry(`b${index}`, { ownerId: 'tok-b', content: `harbour ferry ferry harbour note ${index}` }),
            vector('m', 1, index / 1000, 0),
          );
        }
        await memory.insert(
          memoryEntry('op', { content: 'harbour ferry schedule from the operator' }),
          vector('m', 1, 0.01, 0),
        );
        await memory.insert(
          memoryEntry('tb', { tenantId: 'tenant-b', ownerId: 'tok-b', content: 'harbour ferry in tenant b' }),
          vector('m', 1, 0.02, 0),
        );
        await memory.insert(
          memoryEntry('ac', { tenantId: 'tenant-c', ownerId: 'tok-a', content: 'harbour ferry in tenant c' }),
          vector('m', 1, 0.03, 0),
        );
      }

      it("stores the owner with the entry (null, an operator's, when left out) and reads it back", async () => {
        const stored = await memory.insert(memoryEntry('a1', { ownerId: 'tok-a' }));
        expect(stored.ownerId).toBe('tok-a');
        expect((await memory.get('a1', {}))?.ownerId).toBe('tok-a');
        expect((await memory.insert(memoryEntry('op'))).ownerId).toBeNull();
        expect((await memory.get('op', {}))?.ownerId).toBeNull();
      });

      for (const [label, count, extraOwn] of [
        ['a small part of the store', 40, 0],
        ['most of the store', 0, 6],
      ] as const) {
        it(`keeps every read to the reader's own entries and its tenants' when the owner holds ${label}`, async () => {
          await seed(count, extraOwn);
          const scope = { tenantId: 'tenant-a', agentId: 'agent-1', readableBy: A };
          expect(ids(await memory.searchLexical('harbour ferry', scope, 100))).toEqual(['a1', 'a2']);
          expect(ids(await memory.searchVector(vector('m', 1, 0, 0), scope, 100))).toEqual(['a1', 'a2']);
          expect((await memory.searchVector(vector('m', 1, 0, 0), scope, 1)).map((hit) => hit.id)).toEqual(['a1']);
          // Across tenants: A's own entries wherever they are, and nothing else.
          expect(ids(await memory.searchLexical('harbour ferry', { readableBy: A }, 100))).toEqual(['a1', 'a2', 'ac']);
          expect(ids(await memory.searchVector(vector('m', 1, 0, 0), { readableBy: A }, 100))).toEqual([
            'a1',
            'a2',
            'ac',
          ]);
          // C reads none of tenant-a (not given, owns nothing there) and all of tenant-b, whoever stored it.
          expect(
            await memory.searchLexical(
              'harbour ferry',
              { tenantId: 'tenant-a', agentId: 'agent-1', readableBy: C },
              100,
            ),
          ).toEqual([]);
          expect(
            ids(
              await memory.searchLexical(
                'harbour ferry',
                { tenantId: 'tenant-b', agentId: 'agent-1', readableBy: C },
                100,
              ),
            ),
          ).toEqual(['tb']);
          expect(ids(await memory.searchLexical('harbour ferry', { readableBy: C }, 100))).toEqual(['tb']);
          expect(ids(await memory.searchVector(vector('m', 1, 0, 0), { readableBy: C }, 100))).toEqual(['tb']);
          expect(ids(await memory.searchLexical('harbour ferry', { agentId: 'agent-1', readableBy: C }, 100))).toEqual([
            'tb',
          ]);
          // Admin (no reader) reads everyone's, the operator's entry among them.
          expect(
            await memory.searchLexical('harbour ferry', { tenantId: 'tenant-a', agentId: 'agent-1' }, 100),
          ).toHaveLength(count + 3);
          // Entry reads, counts and probes apply the same scope.
          expect(
            (await memory.getMany(['b0', 'a1', 'op', 'tb', 'ac'], { readableBy: A })).map((entry) => entry.id),
          ).toEqual(['a1', 'ac']);
          expect(await memory.get('op', { readableBy: A })).toBeUndefined();
          expect(await memory.get('tb', { tenantId: 'tenant-b', readableBy: C })).toBeDefined();
          expect((await memory.browse({ readableBy: A }, { offset: 0, limit: 100 })).total).toBe(3 + extraOwn);
          expect((await memory.stats({ tenantId: 'tenant-a', readableBy: A })).totalEntries).toBe(2 + extraOwn);
          expect((await memory.stats({ readableBy: C })).totalEntries).toBe(1);
          expect(await memory.hasEntries({ tenantId: 'tenant-a', agentId: 'agent-1', readableBy: A })).toBe(true);
          expect(await memory.hasEntries({ tenantId: 'tenant-a', agentId: 'agent-1', readableBy: C })).toBe(false);
          expect(
            await memory.hasEntries({
              tenantId: 'tenant-a',
              agentId: 'agent-1',
              readableBy: { ownerId: 'tok-z', tenantIds: [] },
            }),
          ).toBe(false);
        });
      }

      it('deletes and flushes only what the reader may read', async () => {
        await seed(3);
        expect(await memory.delete('b0', { readableBy: A })).toBe(false);
        expect(await memory.delete('a1', { readableBy: A })).toBe(true);
        expect(await memory.flush({ readableBy: A })).toBe(2);
        expect((await memory.browse({}, { offset: 0, limit: 100 })).total).toBe(5);
        expect(await memory.deleteBySource('tenant-a:tok-a:chat', { readableBy: A }, { purgeDerived: false })).toBe(0);
      });

      it("refuses an observation derived from another owner's entry", async () => {
        await memory.insert(memoryEntry('a1', { ownerId: 'tok-a' }));
        await memory.insert(memoryEntry('b1', { ownerId: 'tok-b' }));
        await expect(
          memory.insert(memoryEntry('o1', { ownerId: 'tok-a', memoryType: 'observation', derivedFrom: ['b1'] })),
        ).rejects.toThrow();
        expect(
          (await memory.insert(memoryEntry('o2', { ownerId: 'tok-a', memoryType: 'observation', derivedFrom: ['a1'] })))
            .derivedFrom,
        ).toEqual(['a1']);
      });
    });

    describe('flush and stats', () => {
      it('flushes only the scope, or everything when the scope is empty', async () => {
        await memory.insert(memoryEntry('a1', { content: 'apple' }), vector('m', 1, 0));
        await memory.insert(memoryEntry('a2', { agentId: 'agent-2', content: 'apple' }), vector('m', 1, 0));
        await memory.insert(memoryEntry('b1', { tenantId: 'tenant-b', content: 'apple' }), vector('m', 1, 0));
        expect(await memory.flush({ tenantId: 'tenant-a', agentId: 'agent-2' })).toBe(1);
        expect(await memory.flush({ tenantId: 'tenant-a' })).toBe(1);
        expect((await memory.searchVector(vector('m', 1, 0), {}, 10)).map((hit) => hit.id)).toEqual(['b1']);
        expect(await memory.flush({})).toBe(1);
        expect(await memory.searchVector(vector('m', 1, 0), {}, 10)).toEqual([]);
        expect(await memory.searchLexical('apple', {}, 10)).toEqual([]);
        expect(await memory.agentsWithEntries()).toEqual([]);
        await memory.insert(memoryEntry('again', { content: 'apple' }), vector('m', 1, 0));
        expect((await memory.searchVector(vector('m', 1, 0), {}, 10)).map((hit) => hit.id)).toEqual(['again']);
      });

      it('tells whether a scope holds any entry, per tenant and agent', async () => {
        expect(await memory.hasEntries({ tenantId: 'tenant-a', agentId: 'agent-1' })).toBe(false);
        await memory.insert(memoryEntry('a1', { content: 'apple' }));
        expect(await memory.hasEntries({ tenantId: 'tenant-a', agentId: 'agent-1' })).toBe(true);
        expect(await memory.hasEntries({ tenantId: 'tenant-a' })).toBe(true);
        expect(await memory.hasEntries({ tenantId: 'tenant-a', agentId: 'agent-2' })).toBe(false);
        expect(await memory.hasEntries({ tenantId: 'tenant-b', agentId: 'agent-1' })).toBe(false);
        await memory.delete('a1', { tenantId: 'tenant-a' });
        expect(await memory.hasEntries({ tenantId: 'tenant-a', agentId: 'agent-1' })).toBe(false);
      });

      it('counts within the scope: by type, untrusted, demoted and vectors by model', async () => {
        await memory.insert(memoryEntry('f1'), vector('model-a', 1, 0));
        await memory.insert(memoryEntry('f2', { trustLevel: 'untrusted' }), vector('model-b', 1, 0));
        await memory.insert(memoryEntry('p1', { memoryType: 'preference' }));
        await memory.insert(
          memoryEntry('b1', { tenantId: 'tenant-b', memoryType: 'episode' }),
          vector('model-a', 1, 0),
        );
        const stats = await memory.stats({ tenantId: 'tenant-a' });
        expect(stats).toMatchObject({
          totalEntries: 3,
          byType: { fact: 2, preference: 1 },
          untrusted: 1,
          demoted: 0,
          vectorsByModel: { 'model-a': 1, 'model-b': 1 },
        });
        expect(stats.dbSizeBytes).toBeGreaterThan(0);
        expect(await memory.stats({ tenantId: 'tenant-b' })).toMatchObject({
          totalEntries: 1,
          byType: { episode: 1 },
          vectorsByModel: { 'model-a': 1 },
        });
        expect(await memory.stats({ tenantId: 'tenant-c' })).toMatchObject({
          totalEntries: 0,
          byType: {},
          untrusted: 0,
          vectorsByModel: {},
        });
        expect((await memory.stats({})).totalEntries).toBe(4);
      });
    });

    describe('lifecycle', () => {
      const policy = { demoteAfterMs: 1_000, evictAfterMs: 5_000, maxDemotedPerAgent: 2 };

      it('records recalls, demotes the unused, evicts past the cap and the age, and promotes what is recalled again', async () => {
        await memory.insert(memoryEntry('e1', { createdAt: 0 }), vector('m', 1, 0));
        await memory.insert(memoryEntry('e2', { createdAt: 10 }), vector('m', 1, 0.1));
        await memory.insert(memoryEntry('e3', { createdAt: 20 }), vector('m', 1, 0.2));
        await memory.insert(memoryEntry('e4', { createdAt: 30 }), vector('m', 1, 0.3));
        await memory.insert(memoryEntry('other', { agentId: 'agent-2', createdAt: 0 }));
        await memory.markRecalled(['e1', 'e1'], 900);
        expect(await memory.get('e1', {})).toMatchObject({ recallCount: 1, lastRecalledAt: 900, status: 'active' });

        const first = await memory.sweep('agent-1', policy, 1_500);
        expect(first).toMatchObject({
          agentId: 'agent-1',
          scanned: 4,
          promoted: 0,
          demoted: 3,
          evicted: 1,
          evictedIds: ['e2'],
        });
        expect([...first.demotedIds].sort()).toEqual(['e2', 'e3', 'e4']);
        expect((await memory.get('other', {}))?.status).toBe('active');
        expect((await memory.searchVector(vector('m', 1, 0), { status: 'demoted' }, 10)).map((hit) => hit.id)).toEqual([
          'e3',
          'e4',
        ]);
        expect((await memory.searchVector(vector('m', 1, 0), { status: 'active' }, 10)).map((hit) => hit.id)).toEqual([
          'e1',
        ]);
        expect((await memory.stats({})).demoted).toBe(2);

        await memory.markRecalled(['e3'], 2_000);
        expect(await memory.get('e3', {})).toMatchObject({ status: 'active', recallCount: 1, lastRecalledAt: 2_000 });
        expect((await memory.searchVector(vector('m', 1, 0), { status: 'active' }, 10)).map((hit) => hit.id)).toEqual([
          'e1',
          'e3',
        ]);
        expect(await memory.sweep('agent-1', policy, 2_100)).toMatchObject({
          scanned: 3,
          promoted: 1,
          demotedIds: ['e1'],
          evicted: 0,
        });
        expect(await memory.sweep('agent-1', policy, 2_200)).toMatchObject({ promoted: 0 });

        const last = await memory.sweep('agent-1', policy, 6_000);
        expect(last).toMatchObject({ scanned: 3, promoted: 0, demotedIds: ['e3'] });
        expect([...last.evictedIds].sort()).toEqual(['e1', 'e4']);
        expect(
          (await memory.browse({ agentId: 'agent-1' }, { offset: 0, limit: 10 })).entries.map((entry) => [
            entry.id,
            entry.status,
          ]),
        ).toEqual([['e3', 'demoted']]);
        expect(await memory.agentsWithEntries()).toEqual(['agent-1', 'agent-2']);
      });

      it('demotes the active entries named (a failed outcome they were recalled into), once, searchable as demoted', async () => {
        await memory.insert(memoryEntry('e1', { createdAt: 0 }), vector('m', 1, 0));
        await memory.insert(memoryEntry('e2', { createdAt: 10 }), vector('m', 1, 0.1));
        await memory.insert(memoryEntry('e3', { createdAt: 20 }), vector('m', 1, 0.2));
        expect(await memory.demote(['e1', 'e2', 'e2', 'missing'], 100)).toBe(2);
        expect(await memory.demote(['e1'], 110)).toBe(0);
        expect([(await memory.get('e1', {}))?.status, (await memory.get('e3', {}))?.status]).toEqual([
          'demoted',
          'active',
        ]);
        expect((await memory.searchVector(vector('m', 1, 0), { status: 'demoted' }, 10)).map((hit) => hit.id)).toEqual([
          'e1',
          'e2',
        ]);
        expect((await memory.stats({})).demoted).toBe(2);
      });

      it('keeps the demoted cap per tenant', async () => {
        for (const tenantId of ['tenant-a', 'tenant-b']) {
          for (let index = 0; index < 3; index += 1)
            await memory.insert(memoryEntry(`${tenantId}-${index}`, { tenantId, createdAt: index }));
        }
        const outcome = await memory.sweep('agent-1', policy, 2_000);
        expect(outcome).toMatchObject({ scanned: 6, demoted: 6, evicted: 2 });
        expect([...outcome.evictedIds].sort()).toEqual(['tenant-a-0', 'tenant-b-0']);
      });
    });
  });

  describe(`MemoryPort embedding cache conformance (${backend})`, () => {
    let clock = 0;
    let fixture: PortFixture<MemoryPort>;
    beforeEach(async () => {
      clock = 0;
      fixture = await open({ embeddingCacheMaxEntries: 3, now: () => clock });
    });
    afterEach(async () => {
      await fixture.close();
    });

    it('returns cached vectors by model and hash, counts hits and misses, and evicts the least recently used', async () => {
      const memory = fixture.port;
      expect(await memory.embeddingCacheStats()).toEqual({ entries: 0, hits: 0, misses: 0, evictions: 0, hitRate: 0 });
      for (const hash of ['h1', 'h2', 'h3']) {
        clock += 1;
        await memory.cacheEmbedding('model-a', hash, Float32Array.from([clock, 0.5]));
      }
      clock += 1;
      expect(await memory.cachedEmbedding('model-a', 'h1')).toEqual(Float32Array.from([1, 0.5]));
      expect(await memory.cachedEmbedding('model-b', 'h1')).toBeUndefined();
      clock += 1;
      await memory.cacheEmbedding('model-a', 'h4', Float32Array.from([4]));
      expect(await memory.cachedEmbedding('model-a', 'h2')).toBeUndefined();
      expect(await memory.cachedEmbedding('model-a', 'h1')).toEqual(Float32Array.from([1, 0.5]));
      expect(await memory.cachedEmbedding('model-a', 'h4')).toEqual(Float32Array.from([4]));
      expect(await memory.embeddingCacheStats()).toEqual({
        entries: 3,
        hits: 3,
        misses: 2,
        evictions: 1,
        hitRate: 0.6,
      });
    });
  });
}
