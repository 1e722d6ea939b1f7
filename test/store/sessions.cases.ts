// The SessionPort conformance suite: every backend (SQLite, PostgreSQL) runs these same cases against a fresh port.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunPort, RunRecord, SessionPort, SessionRecord, TranscriptMessage } from '../../src/store/index.js';
import type { PortFixture } from './port-fixture.js';
import { sessionListCases } from './session-list.cases.js';

export interface SessionPortFixture extends PortFixture<SessionPort> {
  /** Shuts the backend down the way the gateway does (StorePorts.close) and opens it again on the same data. */
  reopen(): Promise<SessionPort>;
  /** A second port on a connection of its own to the same data: it reads only what the first one committed. */
  otherConnection(): Promise<SessionPort>;
  /** The run port on the same data: sub-agent sessions are archived by their spawn run's end. */
  runs(): RunPort;
}

const T0 = 1_700_000_000_000;

function newSession(sessionKey: string, overrides: Partial<Omit<SessionRecord, 'messageCount' | 'updatedAt'>> = {}) {
  return {
    sessionKey,
    agentId: 'default',
    tenantId: 'default',
    kind: 'dm' as const,
    createdAt: T0,
    metadata: {},
    ownerId: null,
    ...overrides,
  };
}

const user = (content: string, timestamp = T0): TranscriptMessage => ({ role: 'user', content, timestamp });
const assistant = (content: string, timestamp = T0): TranscriptMessage => ({ role: 'assistant', content, timestamp });

function spawnRun(runId: string, sessionKey: string, completedAt: number | null): RunRecord {
  return {
    runId,
    rootRunId: runId,
    kind: 'spawn',
    parentKey: 'default:alice:ws',
    sessionKey,
    agentId: 'default',
    task: 'task',
    status: completedAt === null ? 'running' : 'completed',
    requestedBy: 'alice',
    startedAt: T0,
    completedAt,
    response: null,
    tokensUsed: null,
    costUsd: null,
    error: null,
    ownerInstance: null,
    heartbeatAt: null,
  };
}

export function sessionPortCases(backend: string, open: () => Promise<SessionPortFixture>): void {
  sessionListCases(backend, open);
  describe(`SessionPort conformance (${backend})`, () => {
    let fixture: SessionPortFixture;
    let store: SessionPort;
    beforeEach(async () => {
      fixture = await open();
      store = fixture.port;
    });
    afterEach(async () => {
      await fixture.close();
    });

    it('creates a session once and reports whether ensure created it', async () => {
      const first = await store.ensure(newSession('default:alice:ws', { metadata: { a: 1 }, ownerId: 'rpc-client' }));
      expect(first.created).toBe(true);
      expect(first.session).toEqual({
        sessionKey: 'default:alice:ws',
        agentId: 'default',
        tenantId: 'default',
        kind: 'dm',
        createdAt: T0,
        updatedAt: T0,
        metadata: { a: 1 },
        messageCount: 0,
        ownerId: 'rpc-client',
      });
      const second = await store.ensure(
        newSession('default:alice:ws', { agentId: 'other', metadata: { b: 2 }, ownerId: 'intruder' }),
      );
      expect(second.created).toBe(false);
      expect(second.session.agentId).toBe('default');
      expect(second.session.metadata).toEqual({ a: 1 });
      // The owner is the creator's for good: ensuring the key again never hands the session over.
      expect(second.session.ownerId).toBe('rpc-client');
      expect((await store.get('default:alice:ws'))?.ownerId).toBe('rpc-client');
      expect((await store.ensure(newSession('default:legacy:ws'))).session.ownerId).toBeNull();
      expect(await store.get('default:nobody:ws')).toBeUndefined();
    });

    it('appends messages in order and keeps message_count and updatedAt in step', async () => {
      await store.ensure(newSession('default:alice:ws'));
      await store.append('default:alice:ws', [user('one', T0 + 1), assistant('two', T0 + 2)], T0 + 10);
      await store.append('default:alice:ws', [user('three', T0 + 3)], T0 + 20);
      expect((await store.history('default:alice:ws')).map((m) => m.content)).toEqual(['one', 'two', 'three']);
      const session = await store.get('default:alice:ws');
      expect(session?.messageCount).toBe(3);
      expect(session?.updatedAt).toBe(T0 + 20);
    });

    it('keeps the newest messages, oldest first, when history is limited', async () => {
      await store.ensure(newSession('default:alice:ws'));
      await store.append(
        'default:alice:ws',
        ['a', 'b', 'c', 'd'].map((c, i) => user(c, T0 + i)),
        T0,
      );
      expect((await store.history('default:alice:ws', 2)).map((m) => m.content)).toEqual(['c', 'd']);
      expect((await store.history('default:alice:ws', 10)).map((m) => m.content)).toEqual(['a', 'b', 'c', 'd']);
      expect(await store.history('default:alice:ws', 0)).toEqual([]);
      expect(await store.history('default:nobody:ws')).toEqual([]);
    });

    it('round-trips tool calls, tool results and timestamps', async () => {
      await store.ensure(newSession('default:alice:ws'));
      const messages: TranscriptMessage[] = [
        { role: 'system', content: 'be brief', timestamp: T0 },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'call-1', name: 'memory_search', input: { q: 'x', n: 2 } }],
          timestamp: T0 + 1,
        },
        {
          role: 'tool',
          toolCallId: 'call-1',
          toolName: 'memory_search',
          content: '[]',
          isError: false,
          timestamp: T0 + 2,
        },
        { role: 'tool', toolCallId: 'call-2', toolName: 'shell', content: 'denied', isError: true, timestamp: T0 + 3 },
        { role: 'assistant', content: 'done', timestamp: T0 + 4 },
      ];
      await store.append('default:alice:ws', messages, T0 + 5);
      expect(await store.history('default:alice:ws')).toEqual(messages);
    });

    it('refuses to append to a session that does not exist', async () => {
      await expect(store.append('default:nobody:ws', [user('x')], T0)).rejects.toThrow(
        expect.objectContaining({ kind: 'not_found' }),
      );
    });

    it('replaces the whole history and sets message_count to the new length', async () => {
      await store.ensure(newSession('default:alice:ws'));
      await store.append(
        'default:alice:ws',
        ['a', 'b', 'c'].map((c) => user(c)),
        T0,
      );
      await store.replaceHistory(
        'default:alice:ws',
        [{ role: 'system', content: 'summary of a b', timestamp: T0 }, user('c')],
        T0 + 50,
      );
      expect((await store.history('default:alice:ws')).map((m) => m.content)).toEqual(['summary of a b', 'c']);
      expect(await store.get('default:alice:ws')).toMatchObject({ messageCount: 2, updatedAt: T0 + 50 });
      expect((await store.search('summary', 5)).map((hit) => hit.sessionKey)).toEqual(['default:alice:ws']);
    });

    it('clears messages but keeps the session row and its metadata', async () => {
      await store.ensure(newSession('default:alice:ws', { metadata: { topic: 'x' } }));
      await store.append('default:alice:ws', [user('hello'), assistant('hi')], T0);
      expect(await store.clearMessages('default:alice:ws', T0 + 5)).toBe(2);
      expect(await store.history('default:alice:ws')).toEqual([]);
      expect(await store.get('default:alice:ws')).toMatchObject({
        messageCount: 0,
        metadata: { topic: 'x' },
        updatedAt: T0 + 5,
      });
      expect(await store.search('hello', 5)).toEqual([]);
      expect(await store.clearMessages('default:nobody:ws', T0)).toBe(0);
    });

    it('deletes a session with its transcript, and search no longer finds it', async () => {
      await store.ensure(newSession('default:alice:ws'));
      await store.ensure(newSession('default:bob:ws'));
      await store.append('default:alice:ws', [user('pineapple pizza')], T0);
      await store.append('default:bob:ws', [user('pineapple juice')], T0);
      expect(await store.delete('default:alice:ws')).toBe(true);
      expect(await store.delete('default:alice:ws')).toBe(false);
      expect(await store.get('default:alice:ws')).toBeUndefined();
      expect(await store.history('default:alice:ws')).toEqual([]);
      expect((await store.search('pineapple', 10)).map((hit) => hit.sessionKey)).toEqual(['default:bob:ws']);
      // A new session under the same key starts empty.
      await store.ensure(newSession('default:alice:ws'));
      expect((await store.get('default:alice:ws'))?.messageCount).toBe(0);
      expect(await store.search('pizza', 10)).toEqual([]);
    });

    it('ranks search hits by relevance, one per session, with a marked snippet', async () => {
      await store.ensure(newSession('default:alice:ws', { agentId: 'helper' }));
      await store.ensure(newSession('default:bob:telegram:42', { metadata: { channelType: 'telegram' } }));
      await store.ensure(newSession('default:carol:ws'));
      await store.append(
        'default:alice:ws',
        [
          user('the weather in Paris is rainy', T0 + 1),
          assistant('Paris weather: rain, rain and more rain in Paris', T0 + 2),
        ],
        T0,
      );
      await store.append(
        'default:bob:telegram:42',
        [user('I once visited Paris in a long summer holiday with many museums', T0 + 3)],
        T0,
      );
      await store.append('default:carol:ws', [user('nothing relevant here', T0 + 4)], T0);
      const hits = await store.search('Paris', 10);
      expect(hits.map((hit) => hit.sessionKey)).toEqual(['default:alice:ws', 'default:bob:telegram:42']);
      expect(hits[0]).toMatchObject({ agentId: 'helper', channelType: null, timestamp: T0 + 2 });
      expect(hits[0]?.snippet).toContain('[Paris]');
      expect(hits[1]?.channelType).toBe('telegram');
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
      expect(await store.search('Paris', 1)).toHaveLength(1);
    });

    it("searches only one owner's sessions when asked, with the limit counting only those", async () => {
      await store.ensure(newSession('default:alice:ws', { ownerId: 'alice' }));
      await store.ensure(newSession('default:bob:ws', { ownerId: 'bob' }));
      await store.ensure(newSession('default:alice:telegram', { ownerId: 'mallory' }));
      await store.ensure(newSession('default:old:ws'));
      // Bob's and mallory's transcripts match better; an owner filter applied after the limit would return nothing.
      await store.append('default:bob:ws', [user('budget budget budget budget')], T0);
      await store.append('default:alice:telegram', [user('budget budget budget')], T0);
      await store.append('default:old:ws', [user('budget budget')], T0);
      await store.append(
        'default:alice:ws',
        [user('the budget and many other words in a long sentence about plans')],
        T0,
      );
      expect((await store.search('budget', 1, 'alice')).map((hit) => hit.sessionKey)).toEqual(['default:alice:ws']);
      expect((await store.search('budget', 10, 'bob')).map((hit) => hit.sessionKey)).toEqual(['default:bob:ws']);
      expect(await store.search('budget', 10, 'nobody')).toEqual([]);
      expect((await store.search('budget', 10)).map((hit) => hit.sessionKey)).toEqual([
        'default:bob:ws',
        'default:alice:telegram',
        'default:old:ws',
        'default:alice:ws',
      ]);
    });

    it('treats search input as plain words, never as query syntax', async () => {
      await store.ensure(newSession('default:alice:ws'));
      await store.append('default:alice:ws', [user('error: "quoted" AND (parens) NEAR star*')], T0);
      expect(await store.search('"quoted" AND (parens', 5)).toHaveLength(1);
      expect(await store.search('NEAR(', 5)).toHaveLength(1);
      expect(await store.search('***', 5)).toEqual([]);
      expect(await store.search('quoted missingword', 5)).toEqual([]);
    });

    it('lists sessions newest first, filtered by kind, update time and owner', async () => {
      await store.ensure(newSession('default:alice:ws', { createdAt: T0, ownerId: 'alice' }));
      await store.ensure(
        newSession('default:alice:group-chat', { kind: 'group', createdAt: T0 + 100, ownerId: 'alice' }),
      );
      await store.ensure(
        newSession('default:alice:subagent:run-1', { kind: 'sub-agent', createdAt: T0 + 200, ownerId: 'alice' }),
      );
      await store.ensure(newSession('default:bob:ws', { createdAt: T0 + 300, ownerId: 'alice' }));
      await store.ensure(newSession('default:alicea:ws', { createdAt: T0 + 400, ownerId: 'alicea' }));
      // Keyed for alice and last driven by her, but created by someone else: not hers.
      await store.ensure(
        newSession('default:alice:telegram', {
          createdAt: T0 - 100,
          ownerId: 'mallory',
          metadata: { requestedBy: 'alice' },
        }),
      );
      expect((await store.list({})).map((s) => s.sessionKey)).toEqual([
        'default:alicea:ws',
        'default:bob:ws',
        'default:alice:subagent:run-1',
        'default:alice:group-chat',
        'default:alice:ws',
        'default:alice:telegram',
      ]);
      expect((await store.list({ kind: 'group' })).map((s) => s.sessionKey)).toEqual(['default:alice:group-chat']);
      expect((await store.list({ kind: 'sub-agent' })).map((s) => s.sessionKey)).toEqual([
        'default:alice:subagent:run-1',
      ]);
      expect((await store.list({ updatedSince: T0 + 250 })).map((s) => s.sessionKey)).toEqual([
        'default:alicea:ws',
        'default:bob:ws',
      ]);
      expect((await store.list({ ownedBy: 'alice' })).map((s) => s.sessionKey)).toEqual([
        'default:bob:ws',
        'default:alice:subagent:run-1',
        'default:alice:group-chat',
        'default:alice:ws',
      ]);
      expect((await store.list({ ownedBy: 'mallory' })).map((s) => s.sessionKey)).toEqual(['default:alice:telegram']);
      expect((await store.list({ ownedBy: 'alice', limit: 1 })).map((s) => s.sessionKey)).toEqual(['default:bob:ws']);
      await store.append('default:alice:ws', [user('bump')], T0 + 1000);
      expect((await store.list({ limit: 1 }))[0]?.sessionKey).toBe('default:alice:ws');
    });

    it('lists by agent and pages by keyset: after a cursor comes the rest in the same order, ties broken by key', async () => {
      await store.ensure(newSession('default:a:1', { createdAt: T0 + 300, agentId: 'helper' }));
      await store.ensure(newSession('default:a:2', { createdAt: T0 + 200 }));
      await store.ensure(newSession('default:a:3', { createdAt: T0 + 200, agentId: 'helper' }));
      await store.ensure(newSession('default:a:4', { createdAt: T0 + 200 }));
      await store.ensure(newSession('default:a:5', { createdAt: T0 + 100, agentId: 'helper' }));
      const keys = async (filter: Parameters<SessionPort['list']>[0]) =>
        (await store.list(filter)).map((s) => s.sessionKey);
      expect(await keys({})).toEqual(['default:a:1', 'default:a:2', 'default:a:3', 'default:a:4', 'default:a:5']);
      expect(await keys({ agentId: 'helper' })).toEqual(['default:a:1', 'default:a:3', 'default:a:5']);
      expect(await keys({ limit: 2, after: { updatedAt: T0 + 200, sessionKey: 'default:a:2' } })).toEqual([
        'default:a:3',
        'default:a:4',
      ]);
      expect(await keys({ agentId: 'helper', after: { updatedAt: T0 + 200, sessionKey: 'default:a:3' } })).toEqual([
        'default:a:5',
      ]);
      expect(await keys({ kind: 'group', agentId: 'helper' })).toEqual([]);
    });

    it('replaces metadata and reports whether the session exists', async () => {
      await store.ensure(newSession('default:alice:ws', { metadata: { a: 1 } }));
      expect(await store.updateMetadata('default:alice:ws', { b: [1, 2] }, T0 + 9)).toBe(true);
      expect(await store.get('default:alice:ws')).toMatchObject({ metadata: { b: [1, 2] }, updatedAt: T0 + 9 });
      expect(await store.updateMetadata('default:nobody:ws', {}, T0)).toBe(false);
    });

    it('adds each turn to the usage totals and records the last requester, read back as metadata', async () => {
      await store.ensure(newSession('default:alice:ws', { metadata: { a: 1 } }));
      expect((await store.get('default:alice:ws'))?.metadata).toEqual({ a: 1 });
      expect(
        await store.recordTurnUsage(
          'default:alice:ws',
          { totalTokens: 10, totalCost: 0.5, stepsExecuted: 2, requestedBy: 'alice' },
          T0 + 5,
        ),
      ).toBe(true);
      expect(
        await store.recordTurnUsage(
          'default:alice:ws',
          { totalTokens: 5, totalCost: 0.25, stepsExecuted: 1, requestedBy: 'bob' },
          T0 + 6,
        ),
      ).toBe(true);
      expect(await store.get('default:alice:ws')).toMatchObject({
        updatedAt: T0 + 6,
        metadata: { a: 1, usage: { totalTokens: 15, totalCost: 0.75, stepsExecuted: 3, turns: 2 }, requestedBy: 'bob' },
      });
      expect(
        await store.recordTurnUsage(
          'default:nobody:ws',
          { totalTokens: 1, totalCost: 0, stepsExecuted: 1, requestedBy: 'x' },
          T0,
        ),
      ).toBe(false);
      expect(await store.get('default:nobody:ws')).toBeUndefined();
    });

    it('loses no turn when turns of one session are recorded at the same time', async () => {
      await store.ensure(newSession('default:alice:ws'));
      const turn = { totalTokens: 3, totalCost: 0.5, stepsExecuted: 1, requestedBy: 'alice' };
      await Promise.all(
        Array.from({ length: 25 }, (_, index) => store.recordTurnUsage('default:alice:ws', turn, T0 + index)),
      );
      expect((await store.get('default:alice:ws'))?.metadata.usage).toEqual({
        totalTokens: 75,
        totalCost: 12.5,
        stepsExecuted: 25,
        turns: 25,
      });
    });

    it('keeps the usage totals when the rest of the metadata is replaced', async () => {
      await store.ensure(newSession('default:alice:ws', { metadata: { requestedBy: 'alice' } }));
      await store.recordTurnUsage(
        'default:alice:ws',
        { totalTokens: 4, totalCost: 0, stepsExecuted: 1, requestedBy: 'alice' },
        T0 + 1,
      );
      const session = await store.get('default:alice:ws');
      await store.updateMetadata('default:alice:ws', { ...session?.metadata, lastCompaction: { at: T0 + 2 } }, T0 + 2);
      await store.updateMetadata(
        'default:alice:ws',
        { ...(await store.get('default:alice:ws'))?.metadata, usage: { totalTokens: 999 } },
        T0 + 3,
      );
      await store.recordTurnUsage(
        'default:alice:ws',
        { totalTokens: 6, totalCost: 0.5, stepsExecuted: 2, requestedBy: 'alice' },
        T0 + 4,
      );
      expect((await store.get('default:alice:ws'))?.metadata).toEqual({
        requestedBy: 'alice',
        lastCompaction: { at: T0 + 2 },
        usage: { totalTokens: 10, totalCost: 0.5, stepsExecuted: 3, turns: 2 },
      });
    });

    it('keeps every message of many concurrent turns, in order, with exact counts, times and usage', async () => {
      const keys = Array.from({ length: 8 }, (_, index) => `default:user${index}:ws`);
      for (const key of keys) await store.ensure(newSession(key));
      const turn = { totalTokens: 10, totalCost: 0.25, stepsExecuted: 2, requestedBy: 'alice' };
      // Turns of one session follow each other (TurnService holds its lock); sessions run side by side.
      await Promise.all(
        keys.map(async (key) => {
          for (let index = 0; index < 12; index += 1) {
            await store.append(key, [user(`${key} question ${index}`, T0 + index)], T0 + index * 10);
            await store.append(key, [assistant(`${key} answer ${index}`, T0 + index)], T0 + index * 10 + 1);
            await store.recordTurnUsage(key, turn, T0 + index * 10 + 2);
          }
        }),
      );
      for (const key of keys) {
        const expected = Array.from({ length: 12 }, (_, index) => [
          `${key} question ${index}`,
          `${key} answer ${index}`,
        ]).flat();
        expect((await store.history(key)).map((message) => message.content)).toEqual(expected);
        expect(await store.get(key)).toMatchObject({
          messageCount: 24,
          updatedAt: T0 + 112,
          metadata: { usage: { totalTokens: 120, totalCost: 3, stepsExecuted: 24, turns: 12 }, requestedBy: 'alice' },
        });
      }
    });

    it('shows each write to the very next call: get, ensure, history, list and search', async () => {
      await store.ensure(newSession('default:alice:ws'));
      await store.ensure(newSession('default:bob:ws', { createdAt: T0 + 50 }));
      await store.append('default:alice:ws', [user('kumquat season')], T0 + 100);
      expect(await store.get('default:alice:ws')).toMatchObject({ messageCount: 1, updatedAt: T0 + 100 });
      await store.recordTurnUsage(
        'default:alice:ws',
        { totalTokens: 7, totalCost: 0, stepsExecuted: 1, requestedBy: 'alice' },
        T0 + 101,
      );
      const ensured = await store.ensure(newSession('default:alice:ws'));
      expect(ensured).toMatchObject({
        created: false,
        session: { messageCount: 1, updatedAt: T0 + 101, metadata: { usage: { totalTokens: 7, turns: 1 } } },
      });
      await store.append('default:alice:ws', [assistant('kumquat jam')], T0 + 102);
      expect((await store.history('default:alice:ws', 1)).map((message) => message.content)).toEqual(['kumquat jam']);
      await store.append('default:bob:ws', [user('hello')], T0 + 200);
      expect((await store.list({ limit: 1 }))[0]).toMatchObject({
        sessionKey: 'default:bob:ws',
        messageCount: 1,
        updatedAt: T0 + 200,
      });
      await store.append('default:bob:ws', [user('kumquat tree')], T0 + 201);
      expect((await store.search('kumquat', 10)).map((hit) => hit.sessionKey).sort()).toEqual([
        'default:alice:ws',
        'default:bob:ws',
      ]);
    });

    it('refuses writes to a session deleted after its earlier writes were accepted', async () => {
      await store.ensure(newSession('default:alice:ws'));
      await store.append('default:alice:ws', [user('one')], T0);
      await store.recordTurnUsage(
        'default:alice:ws',
        { totalTokens: 1, totalCost: 0, stepsExecuted: 1, requestedBy: 'alice' },
        T0,
      );
      expect(await store.delete('default:alice:ws')).toBe(true);
      await expect(store.append('default:alice:ws', [user('two')], T0 + 1)).rejects.toThrow(
        expect.objectContaining({ kind: 'not_found' }),
      );
      expect(
        await store.recordTurnUsage(
          'default:alice:ws',
          { totalTokens: 1, totalCost: 0, stepsExecuted: 1, requestedBy: 'alice' },
          T0 + 1,
        ),
      ).toBe(false);
      expect(await store.get('default:alice:ws')).toBeUndefined();
    });

    it('clears, replaces, updates and deletes after accepted appends as if each append had been stored at once', async () => {
      await store.ensure(newSession('default:alice:ws', { metadata: { topic: 'x' } }));
      await store.append('default:alice:ws', [user('first mango')], T0 + 1);
      await store.append('default:alice:ws', [assistant('second mango')], T0 + 2);
      expect(await store.clearMessages('default:alice:ws', T0 + 3)).toBe(2);
      expect(await store.get('default:alice:ws')).toMatchObject({ messageCount: 0, updatedAt: T0 + 3 });
      expect(await store.search('mango', 5)).toEqual([]);

      await store.append('default:alice:ws', [user('papaya')], T0 + 4);
      await store.replaceHistory('default:alice:ws', [{ role: 'system', content: 'summary', timestamp: T0 }], T0 + 5);
      expect(await store.history('default:alice:ws')).toEqual([{ role: 'system', content: 'summary', timestamp: T0 }]);
      expect(await store.get('default:alice:ws')).toMatchObject({ messageCount: 1, updatedAt: T0 + 5 });
      expect(await store.search('papaya', 5)).toEqual([]);

      await store.recordTurnUsage(
        'default:alice:ws',
        { totalTokens: 3, totalCost: 0, stepsExecuted: 1, requestedBy: 'bob' },
        T0 + 6,
      );
      expect(await store.updateMetadata('default:alice:ws', { topic: 'y' }, T0 + 7)).toBe(true);
      expect(await store.get('default:alice:ws')).toMatchObject({
        updatedAt: T0 + 7,
        metadata: {
          topic: 'y',
          usage: { totalTokens: 3, totalCost: 0, stepsExecuted: 1, turns: 1 },
          requestedBy: 'bob',
        },
      });

      await store.append('default:alice:ws', [user('guava')], T0 + 8);
      expect(await store.delete('default:alice:ws')).toBe(true);
      expect(await store.history('default:alice:ws')).toEqual([]);
      expect(await store.search('guava', 5)).toEqual([]);
      const recreated = await store.ensure(newSession('default:alice:ws'));
      expect(recreated).toMatchObject({ created: true, session: { messageCount: 0, metadata: {} } });
    });

    it('has committed an append and a usage write by the time it answers them: another connection reads them', async () => {
      const other = await fixture.otherConnection();
      // Many sessions' writes at once, as turns finishing together make them.
      const keys = Array.from({ length: 6 }, (_, index) => `default:user${index}:ws`);
      for (const key of keys) await store.ensure(newSession(key));
      const readers = keys.map(async (key, index) => {
        await store.append(key, [user(`${key} question`), assistant(`${key} answer`)], T0 + index);
        // Read from the other connection right on the answer, before anything else of this port runs.
        const history = other.history(key);
        await store.recordTurnUsage(
          key,
          { totalTokens: 5, totalCost: 0, stepsExecuted: 1, requestedBy: 'alice' },
          T0 + index,
        );
        const record = other.get(key);
        return { history: (await history).map((message) => message.content), usage: (await record)?.metadata.usage };
      });
      for (const [index, seen] of (await Promise.all(readers)).entries()) {
        const key = keys[index] ?? '';
        expect(seen).toEqual({
          history: [`${key} question`, `${key} answer`],
          usage: { totalTokens: 5, totalCost: 0, stepsExecuted: 1, turns: 1 },
        });
      }
    });

    it('writes accepted appends and usage before it shuts down, so they are there after a restart', async () => {
      await store.ensure(newSession('default:alice:ws'));
      await store.append('default:alice:ws', [user('before shutdown', T0 + 1)], T0 + 10);
      await store.recordTurnUsage(
        'default:alice:ws',
        { totalTokens: 4, totalCost: 0.5, stepsExecuted: 1, requestedBy: 'alice' },
        T0 + 11,
      );
      // Answered writes are committed; the restart comes right after them.
      store = await fixture.reopen();
      expect(await store.history('default:alice:ws')).toEqual([user('before shutdown', T0 + 1)]);
      expect(await store.get('default:alice:ws')).toMatchObject({
        messageCount: 1,
        updatedAt: T0 + 11,
        metadata: { usage: { totalTokens: 4, totalCost: 0.5, stepsExecuted: 1, turns: 1 }, requestedBy: 'alice' },
      });
      expect((await store.search('shutdown', 5)).map((hit) => hit.sessionKey)).toEqual(['default:alice:ws']);
    });

    it('stops a slow read whose signal is already aborted', async () => {
      await store.ensure(newSession('default:alice:ws'));
      const aborted = AbortSignal.abort();
      await expect(store.history('default:alice:ws', undefined, aborted)).rejects.toThrow();
      await expect(store.list({}, aborted)).rejects.toThrow();
      await expect(store.search('anything', 5, undefined, aborted)).rejects.toThrow();
    });
    it('expires idle sessions once each, longest idle first and a batch at a time, keeping their transcripts', async () => {
      for (const [key, at] of [
        ['default:a:ws', T0 + 30],
        ['default:b:ws', T0 + 10],
        ['default:c:ws', T0 + 20],
        ['default:busy:ws', T0 + 500],
      ] as const) {
        await store.ensure(newSession(key));
        await store.append(key, [user(`hello ${key}`)], at);
      }
      expect(await store.expireIdle(T0 + 100, T0 + 1000, 2)).toEqual(['default:b:ws', 'default:c:ws']);
      expect(await store.expireIdle(T0 + 100, T0 + 2000, 2)).toEqual(['default:a:ws']);
      expect(await store.expireIdle(T0 + 100, T0 + 3000, 2)).toEqual([]);
      expect(await store.get('default:b:ws')).toMatchObject({ expiredAt: T0 + 1000, updatedAt: T0 + 10 });
      expect(await store.get('default:a:ws')).toMatchObject({ expiredAt: T0 + 2000 });
      expect(await store.get('default:busy:ws')).not.toHaveProperty('expiredAt');
      expect((await store.history('default:b:ws')).map((message) => message.content)).toEqual(['hello default:b:ws']);
      // Another connection sweeping the same rows finds nothing left to mark.
      const other = await fixture.otherConnection();
      expect(await other.expireIdle(T0 + 1000, T0 + 4000, 10)).toEqual(['default:busy:ws']);
      expect(await store.expireIdle(T0 + 1000, T0 + 4000, 10)).toEqual([]);
    });

    it('deletes expired sessions past their retention, oldest expiry first, with their transcripts', async () => {
      for (const [key, at] of [
        ['default:a:ws', T0 + 1],
        ['default:b:ws', T0 + 2],
        ['default:live:ws', T0 + 900],
      ] as const) {
        await store.ensure(newSession(key));
        await store.append(key, [user(`kept ${key}`)], at);
      }
      await store.expireIdle(T0 + 10, T0 + 100, 1);
      await store.expireIdle(T0 + 10, T0 + 200, 1);
      expect(await store.deleteExpired(T0 + 100, 10)).toBe(0);
      expect(await store.deleteExpired(T0 + 300, 1)).toBe(1);
      const keys = async () => (await store.list({})).map((session) => session.sessionKey);
      expect(await keys()).toEqual(['default:live:ws', 'default:b:ws']);
      expect(await store.deleteExpired(T0 + 300, 10)).toBe(1);
      expect(await keys()).toEqual(['default:live:ws']);
      expect(await store.history('default:a:ws')).toEqual([]);
      expect((await store.search('kept', 10)).map((hit) => hit.sessionKey)).toEqual(['default:live:ws']);
    });

    it('starts an expired session over on its key, its old transcript kept expired under the archive key', async () => {
      await store.ensure(newSession('default:alice:ws', { ownerId: 'alice', metadata: { topic: 'x' } }));
      await store.append('default:alice:ws', [user('old question', T0 + 1), assistant('old answer', T0 + 2)], T0 + 5);
      await store.recordTurnUsage(
        'default:alice:ws',
        { totalTokens: 9, totalCost: 0.5, stepsExecuted: 1, requestedBy: 'alice' },
        T0 + 6,
      );
      expect(await store.restartExpired('default:alice:ws', 'default:alice:ws~expired-1', T0 + 50)).toBe(false);
      await store.expireIdle(T0 + 10, T0 + 20, 10);
      expect(await store.restartExpired('default:alice:ws', 'default:alice:ws~expired-20', T0 + 50)).toBe(true);
      expect(await store.get('default:alice:ws')).toEqual({
        sessionKey: 'default:alice:ws',
        agentId: 'default',
        tenantId: 'default',
        kind: 'dm',
        createdAt: T0 + 50,
        updatedAt: T0 + 50,
        metadata: { topic: 'x' },
        messageCount: 0,
        ownerId: 'alice',
      });
      expect(await store.history('default:alice:ws')).toEqual([]);
      expect(await store.get('default:alice:ws~expired-20')).toMatchObject({
        ownerId: 'alice',
        messageCount: 2,
        expiredAt: T0 + 20,
        updatedAt: T0 + 6,
        metadata: { topic: 'x', usage: { totalTokens: 9, turns: 1 } },
      });
      expect((await store.history('default:alice:ws~expired-20')).map((message) => message.content)).toEqual([
        'old question',
        'old answer',
      ]);
      expect((await store.search('question', 5)).map((hit) => hit.sessionKey)).toEqual(['default:alice:ws~expired-20']);
      await store.append('default:alice:ws', [user('new question', T0 + 60)], T0 + 60);
      expect((await store.history('default:alice:ws')).map((message) => message.content)).toEqual(['new question']);
      // The archive copy goes with its retention; the live session stays.
      expect(await store.deleteExpired(T0 + 100, 10)).toBe(1);
      expect(await store.get('default:alice:ws~expired-20')).toBeUndefined();
      expect(await store.get('default:alice:ws')).toMatchObject({ messageCount: 1 });
    });

    it('archives sub-agent sessions once their spawn run finished long enough ago, and lists them apart', async () => {
      const runs = fixture.runs();
      const sub = (runId: string) => `default:alice:subagent:${runId}`;
      await store.ensure(newSession('default:alice:ws'));
      for (const [runId, completedAt] of [
        ['run-early', T0 + 10],
        ['run-late', T0 + 20],
        ['run-recent', T0 + 500],
        ['run-live', null],
      ] as const) {
        await store.ensure(newSession(sub(runId), { kind: 'sub-agent' }));
        await runs.create(spawnRun(runId, sub(runId), completedAt));
      }
      expect(await store.archiveFinishedSubAgents(T0 + 100, T0 + 1000, 1)).toEqual([
        { runId: 'run-early', sessionKey: sub('run-early') },
      ]);
      expect(await store.archiveFinishedSubAgents(T0 + 100, T0 + 2000, 10)).toEqual([
        { runId: 'run-late', sessionKey: sub('run-late') },
      ]);
      expect(await store.archiveFinishedSubAgents(T0 + 100, T0 + 3000, 10)).toEqual([]);
      expect(await store.get(sub('run-early'))).toMatchObject({ archivedAt: T0 + 1000 });
      expect(await store.get(sub('run-recent'))).not.toHaveProperty('archivedAt');
      const keys = async (filter: Parameters<SessionPort['list']>[0]) =>
        (await store.list(filter)).map((session) => session.sessionKey).sort();
      expect(await keys({ kind: 'sub-agent', archived: false })).toEqual([sub('run-live'), sub('run-recent')]);
      expect(await keys({ kind: 'sub-agent', archived: true })).toEqual([sub('run-early'), sub('run-late')]);
      expect(await keys({ kind: 'sub-agent' })).toHaveLength(4);
    });
  });
}
