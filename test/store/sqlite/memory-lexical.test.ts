// The SQLite lexical lane's word choice: words no entry has are left out, common words give way to rare ones in a
// large scope, and the counts follow every insert and delete; and how it names the entries it ranks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashingVector } from '../../../src/providers/index.js';
import { createSqliteMemoryPort, type SqliteMemoryPort } from '../../../src/store/sqlite/index.js';
import {
  createLexicalLane,
  discriminatingWords,
  LEXICAL_MATCH_BUDGET,
} from '../../../src/store/sqlite/memory-lexical.js';
import { createTermCounts } from '../../../src/store/sqlite/memory-term-counts.js';
import { memoryEntry } from '../memory.cases.js';
import { openTemporaryDatabase, useTemporaryMemoryPorts } from './temporary-database.js';

describe('discriminatingWords', () => {
  const counts = {
    entries: 10_000,
    byWord: new Map([
      ['the', 9_000],
      ['user', 6_000],
      ['likes', 1_500],
      ['zanzibar', 2],
      ['tea', 300],
    ]),
  };

  it('takes the rarest words first while their entry counts fit the budget', () => {
    expect(discriminatingWords('The user likes tea from Zanzibar', counts, 2_000)).toEqual([
      'zanzibar',
      'tea',
      'likes',
    ]);
    expect(discriminatingWords('The user likes tea from Zanzibar', counts, 500)).toEqual(['zanzibar', 'tea']);
  });

  it('leaves out words no entry contains, and matches nothing when every word is too common', () => {
    expect(discriminatingWords('from unknown', counts, LEXICAL_MATCH_BUDGET)).toEqual([]);
    expect(discriminatingWords('the user', counts, 2_000)).toEqual([]);
  });

  it('treats accents and case as FTS5 does', () => {
    const accented = { entries: 3, byWord: new Map([['cafe', 1]]) };
    expect(discriminatingWords('CAFÉ', accented)).toEqual(['cafe']);
  });
});

describe('sqlite lexical lane in a large scope', () => {
  let port: SqliteMemoryPort;
  let close: () => Promise<void>;
  const scope = { tenantId: 'tenant-a', agentId: 'agent-1' };
  const ids = async (query: string) => (await port.searchLexical(query, scope, 5)).map((hit) => hit.id);

  beforeAll(async () => {
    ({ port, close } = await openTemporaryDatabase().then(({ db, close: closeDb }) => ({
      port: createSqliteMemoryPort(db),
      close: closeDb,
    })));
    const fillers = ['coffee', 'meeting', 'report', 'garden', 'travel'];
    for (let index = 0; index < LEXICAL_MATCH_BUDGET + 1_000; index += 1) {
      await port.insert(
        memoryEntry(`e${index}`, { content: `the user mentioned ${fillers[index % fillers.length]} number ${index}` }),
      );
    }
    await port.insert(memoryEntry('rare', { content: 'the user keeps bees in Zanzibar' }));
  }, 60_000);
  afterAll(() => close());

  it('finds the entry with the rare word in a query full of common ones', async () => {
    expect((await ids('what does the user keep in zanzibar'))[0]).toBe('rare');
  });

  it('matches nothing when every word is in more entries than the budget', async () => {
    expect(await ids('the user mentioned')).toEqual([]);
  });

  it('counts a new entry at once, and forgets a deleted one', async () => {
    expect(await ids('okapi')).toEqual([]);
    await port.insert(memoryEntry('new', { content: 'an okapi at the zoo' }));
    expect(await ids('okapi')).toEqual(['new']);
    expect(await port.delete('new', scope)).toBe(true);
    expect(await ids('okapi')).toEqual([]);
    await port.insert(memoryEntry('again', { content: 'another okapi' }));
    expect(await ids('okapi')).toEqual(['again']);
  });

  it('takes deletes of every kind into the counts, so a word once common is matched again', async () => {
    for (let index = 0; index <= LEXICAL_MATCH_BUDGET; index += 1) {
      await port.insert(
        memoryEntry(`bulk${index}`, { content: `a quokka sighting ${index}`, sourceSessionKey: 'tenant-a:bulk:chat' }),
      );
    }
    await port.insert(memoryEntry('quokka', { content: 'the quokka that stayed' }));
    expect(await ids('quokka')).toEqual([]);
    expect(await port.deleteBySource('tenant-a:bulk:chat', scope, { purgeDerived: false })).toBe(
      LEXICAL_MATCH_BUDGET + 1,
    );
    expect(await ids('quokka')).toEqual(['quokka']);
  }, 30_000);

  it('keeps other tenants out whether or not the scope token narrows the query', async () => {
    await port.insert(memoryEntry('elsewhere', { tenantId: 'tenant-b', content: 'bees in Zanzibar too' }));
    expect(await ids('bees zanzibar')).toEqual(['rare']);
    expect(
      (await port.searchLexical('bees zanzibar', { tenantId: 'tenant-b', agentId: 'agent-1' }, 5)).map((hit) => hit.id),
    ).toEqual(['elsewhere']);
  });
});

describe('sqlite lexical lane naming the entries it ranks', () => {
  const { open } = useTemporaryMemoryPorts();
  const scopeA = { tenantId: 'tenant-a', agentId: 'agent-1' };
  const hashed = (text: string) => ({ model: 'hashing-256', values: Float32Array.from(hashingVector(text, 256)) });

  it('names entries held by the vector lane and entries without a vector alike, each only in its own scope', async () => {
    const { port } = await open();
    await port.insert(memoryEntry('held', { content: 'a walrus on the ice' }), hashed('a walrus on the ice'));
    await port.insert(memoryEntry('unembedded', { content: 'the walrus again' }));
    await port.insert(
      memoryEntry('other-tenant', { tenantId: 'tenant-b', content: 'walrus walrus' }),
      hashed('walrus walrus'),
    );
    const found = await port.searchLexical('walrus', scopeA, 10);
    expect(found.map((hit) => hit.id).sort()).toEqual(['held', 'unembedded']);
    expect(found.map((hit) => hit.rank)).toEqual([1, 2]);
    expect(
      (await port.searchLexical('walrus', { tenantId: 'tenant-b', agentId: 'agent-1' }, 10)).map((hit) => hit.id),
    ).toEqual(['other-tenant']);
    expect((await port.searchLexical('walrus', {}, 10)).map((hit) => hit.id).sort()).toEqual([
      'held',
      'other-tenant',
      'unembedded',
    ]);
    await port.delete('held', scopeA);
    expect((await port.searchLexical('walrus', scopeA, 10)).map((hit) => hit.id)).toEqual(['unembedded']);
  });

  it('leaves out a ranked entry that what is held in memory places in another scope, ranking the rest from 1', async () => {
    const { db, port } = await open();
    await port.insert(memoryEntry('first', { content: 'narwhal narwhal narwhal' }));
    await port.insert(memoryEntry('second', { content: 'a narwhal' }));
    const firstSeq = db.prepare<[string], number>('SELECT seq FROM memory_entries WHERE id = ?').pluck().get('first');
    // As when the query's snapshot is older than the memory it is named from: the seq now belongs to another tenant.
    const lane = createLexicalLane(db, createTermCounts(db), (seq) =>
      seq === firstSeq ? { id: 'first', tenantId: 'tenant-b', agentId: 'agent-1', ownerId: null } : undefined,
    );
    expect(await lane('narwhal', scopeA, 10)).toEqual([expect.objectContaining({ id: 'second', rank: 1 })]);
    expect((await lane('narwhal', {}, 10)).map((hit) => hit.id)).toEqual(['first', 'second']);
  });
});
