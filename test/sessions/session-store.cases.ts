// The SessionStore conformance suite: every backend (SQLite today) runs these same cases against a fresh store.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionRecord, SessionStore } from '../../src/sessions/types.js';
import type { TranscriptMessage } from '../../src/providers/index.js';

export interface SessionStoreFixture {
  store: SessionStore;
  /** Records a cached tool approval for a session, the way the approvals module does in that backend. */
  recordApprovalDecision(sessionKey: string, toolName: string): void;
  close(): void | Promise<void>;
}

const T0 = 1_700_000_000_000;

function newSession(sessionKey: string, overrides: Partial<Omit<SessionRecord, 'messageCount' | 'updatedAt'>> = {}) {
  return { sessionKey, agentId: 'default', tenantId: 'default', kind: 'dm' as const, createdAt: T0, metadata: {}, ownerId: null, ...overrides };
}

const user = (content: string, timestamp = T0): TranscriptMessage => ({ role: 'user', content, timestamp });
const assistant = (content: string, timestamp = T0): TranscriptMessage => ({ role: 'assistant', content, timestamp });

export function sessionStoreCases(backend: string, open: () => SessionStoreFixture | Promise<SessionStoreFixture>): void {
  describe(`SessionStore conformance (${backend})`, () => {
    let fixture: SessionStoreFixture;
    let store: SessionStore;
    beforeEach(async () => {
      fixture = await open();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.close();
    });

    it('creates a session once and reports whether ensure created it', () => {
      const first = store.ensure(newSession('default:alice:ws', { metadata: { a: 1 }, ownerId: 'rpc-client' }));
      expect(first.created).toBe(true);
      expect(first.session).toEqual({
        sessionKey: 'default:alice:ws', agentId: 'default', tenantId: 'default', kind: 'dm',
        createdAt: T0, updatedAt: T0, metadata: { a: 1 }, messageCount: 0, ownerId: 'rpc-client',
      });
      const second = store.ensure(newSession('default:alice:ws', { agentId: 'other', metadata: { b: 2 }, ownerId: 'intruder' }));
      expect(second.created).toBe(false);
      expect(second.session.agentId).toBe('default');
      expect(second.session.metadata).toEqual({ a: 1 });
      // The owner is the creator's for good: ensuring the key again never hands the session over.
      expect(second.session.ownerId).toBe('rpc-client');
      expect(store.get('default:alice:ws')?.ownerId).toBe('rpc-client');
      expect(store.ensure(newSession('default:legacy:ws')).session.ownerId).toBeNull();
      expect(store.get('default:nobody:ws')).toBeUndefined();
    });

    it('appends messages in order and keeps message_count and updatedAt in step', () => {
      store.ensure(newSession('default:alice:ws'));
      store.append('default:alice:ws', [user('one', T0 + 1), assistant('two', T0 + 2)], T0 + 10);
      store.append('default:alice:ws', [user('three', T0 + 3)], T0 + 20);
      expect(store.history('default:alice:ws').map((m) => m.content)).toEqual(['one', 'two', 'three']);
      const session = store.get('default:alice:ws');
      expect(session?.messageCount).toBe(3);
      expect(session?.updatedAt).toBe(T0 + 20);
    });

    it('keeps the newest messages, oldest first, when history is limited', () => {
      store.ensure(newSession('default:alice:ws'));
      store.append('default:alice:ws', ['a', 'b', 'c', 'd'].map((c, i) => user(c, T0 + i)), T0);
      expect(store.history('default:alice:ws', 2).map((m) => m.content)).toEqual(['c', 'd']);
      expect(store.history('default:alice:ws', 10).map((m) => m.content)).toEqual(['a', 'b', 'c', 'd']);
      expect(store.history('default:alice:ws', 0)).toEqual([]);
      expect(store.history('default:nobody:ws')).toEqual([]);
    });

    it('round-trips tool calls, tool results and timestamps', () => {
      store.ensure(newSession('default:alice:ws'));
      const messages: TranscriptMessage[] = [
        { role: 'system', content: 'be brief', timestamp: T0 },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call-1', name: 'memory_search', input: { q: 'x', n: 2 } }], timestamp: T0 + 1 },
        { role: 'tool', toolCallId: 'call-1', toolName: 'memory_search', content: '[]', isError: false, timestamp: T0 + 2 },
        { role: 'tool', toolCallId: 'call-2', toolName: 'shell', content: 'denied', isError: true, timestamp: T0 + 3 },
        { role: 'assistant', content: 'done', timestamp: T0 + 4 },
      ];
      store.append('default:alice:ws', messages, T0 + 5);
      expect(store.history('default:alice:ws')).toEqual(messages);
    });

    it('refuses to append to a session that does not exist', () => {
      expect(() => store.append('default:nobody:ws', [user('x')], T0)).toThrow(expect.objectContaining({ kind: 'not_found' }));
    });

    it('replaces the whole history and sets message_count to the new length', () => {
      store.ensure(newSession('default:alice:ws'));
      store.append('default:alice:ws', ['a', 'b', 'c'].map((c) => user(c)), T0);
      store.replaceHistory('default:alice:ws', [{ role: 'system', content: 'summary of a b', timestamp: T0 }, user('c')], T0 + 50);
      expect(store.history('default:alice:ws').map((m) => m.content)).toEqual(['summary of a b', 'c']);
      expect(store.get('default:alice:ws')).toMatchObject({ messageCount: 2, updatedAt: T0 + 50 });
      expect(store.search('summary', 5).map((hit) => hit.sessionKey)).toEqual(['default:alice:ws']);
    });

    it('clears messages but keeps the session row and its metadata', () => {
      store.ensure(newSession('default:alice:ws', { metadata: { topic: 'x' } }));
      store.append('default:alice:ws', [user('hello'), assistant('hi')], T0);
      expect(store.clearMessages('default:alice:ws', T0 + 5)).toBe(2);
      expect(store.history('default:alice:ws')).toEqual([]);
      expect(store.get('default:alice:ws')).toMatchObject({ messageCount: 0, metadata: { topic: 'x' }, updatedAt: T0 + 5 });
      expect(store.search('hello', 5)).toEqual([]);
      expect(store.clearMessages('default:nobody:ws', T0)).toBe(0);
    });

    it('deletes a session with its transcript, and search no longer finds it', () => {
      store.ensure(newSession('default:alice:ws'));
      store.ensure(newSession('default:bob:ws'));
      store.append('default:alice:ws', [user('pineapple pizza')], T0);
      store.append('default:bob:ws', [user('pineapple juice')], T0);
      expect(store.delete('default:alice:ws')).toBe(true);
      expect(store.delete('default:alice:ws')).toBe(false);
      expect(store.get('default:alice:ws')).toBeUndefined();
      expect(store.history('default:alice:ws')).toEqual([]);
      expect(store.search('pineapple', 10).map((hit) => hit.sessionKey)).toEqual(['default:bob:ws']);
      // A new session under the same key starts empty.
      store.ensure(newSession('default:alice:ws'));
      expect(store.get('default:alice:ws')?.messageCount).toBe(0);
      expect(store.search('pizza', 10)).toEqual([]);
    });

    it('ranks search hits by relevance, one per session, with a marked snippet', () => {
      store.ensure(newSession('default:alice:ws', { agentId: 'helper' }));
      store.ensure(newSession('default:bob:telegram:42', { metadata: { channelType: 'telegram' } }));
      store.ensure(newSession('default:carol:ws'));
      store.append('default:alice:ws', [
        user('the weather in Paris is rainy', T0 + 1),
        assistant('Paris weather: rain, rain and more rain in Paris', T0 + 2),
      ], T0);
      store.append('default:bob:telegram:42', [user('I once visited Paris in a long summer holiday with many museums', T0 + 3)], T0);
      store.append('default:carol:ws', [user('nothing relevant here', T0 + 4)], T0);
      const hits = store.search('Paris', 10);
      expect(hits.map((hit) => hit.sessionKey)).toEqual(['default:alice:ws', 'default:bob:telegram:42']);
      expect(hits[0]).toMatchObject({ agentId: 'helper', channelType: 'ws', timestamp: T0 + 2 });
      expect(hits[0]?.snippet).toContain('[Paris]');
      expect(hits[1]?.channelType).toBe('telegram');
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
      expect(store.search('Paris', 1)).toHaveLength(1);
    });

    it("searches only one owner's sessions when asked, with the limit counting only those", () => {
      store.ensure(newSession('default:alice:ws', { ownerId: 'alice' }));
      store.ensure(newSession('default:bob:ws', { ownerId: 'bob' }));
      store.ensure(newSession('default:alice:telegram', { ownerId: 'mallory' }));
      store.ensure(newSession('default:old:ws'));
      // Bob's and mallory's transcripts match better; an owner filter applied after the limit would return nothing.
      store.append('default:bob:ws', [user('budget budget budget budget')], T0);
      store.append('default:alice:telegram', [user('budget budget budget')], T0);
      store.append('default:old:ws', [user('budget budget')], T0);
      store.append('default:alice:ws', [user('the budget and many other words in a long sentence about plans')], T0);
      expect(store.search('budget', 1, 'alice').map((hit) => hit.sessionKey)).toEqual(['default:alice:ws']);
      expect(store.search('budget', 10, 'bob').map((hit) => hit.sessionKey)).toEqual(['default:bob:ws']);
      expect(store.search('budget', 10, 'nobody')).toEqual([]);
      expect(store.search('budget', 10).map((hit) => hit.sessionKey)).toEqual(['default:bob:ws', 'default:alice:telegram', 'default:old:ws', 'default:alice:ws']);
    });

    it('treats search input as plain words, never as query syntax', () => {
      store.ensure(newSession('default:alice:ws'));
      store.append('default:alice:ws', [user('error: "quoted" AND (parens) NEAR star*')], T0);
      expect(store.search('"quoted" AND (parens', 5)).toHaveLength(1);
      expect(store.search('NEAR(', 5)).toHaveLength(1);
      expect(store.search('***', 5)).toEqual([]);
      expect(store.search('quoted missingword', 5)).toEqual([]);
    });

    it('lists sessions newest first, filtered by kind, update time and owner', () => {
      store.ensure(newSession('default:alice:ws', { createdAt: T0, ownerId: 'alice' }));
      store.ensure(newSession('default:alice:group-chat', { kind: 'group', createdAt: T0 + 100, ownerId: 'alice' }));
      store.ensure(newSession('default:alice:subagent:run-1', { kind: 'sub-agent', createdAt: T0 + 200, ownerId: 'alice' }));
      store.ensure(newSession('default:bob:ws', { createdAt: T0 + 300, ownerId: 'alice' }));
      store.ensure(newSession('default:alicea:ws', { createdAt: T0 + 400, ownerId: 'alicea' }));
      // Keyed for alice and last driven by her, but created by someone else: not hers.
      store.ensure(newSession('default:alice:telegram', { createdAt: T0 - 100, ownerId: 'mallory', metadata: { requestedBy: 'alice' } }));
      expect(store.list({}).map((s) => s.sessionKey)).toEqual([
        'default:alicea:ws', 'default:bob:ws', 'default:alice:subagent:run-1', 'default:alice:group-chat', 'default:alice:ws', 'default:alice:telegram',
      ]);
      expect(store.list({ kind: 'group' }).map((s) => s.sessionKey)).toEqual(['default:alice:group-chat']);
      expect(store.list({ kind: 'sub-agent' }).map((s) => s.sessionKey)).toEqual(['default:alice:subagent:run-1']);
      expect(store.list({ updatedSince: T0 + 250 }).map((s) => s.sessionKey)).toEqual(['default:alicea:ws', 'default:bob:ws']);
      expect(store.list({ ownedBy: 'alice' }).map((s) => s.sessionKey)).toEqual([
        'default:bob:ws', 'default:alice:subagent:run-1', 'default:alice:group-chat', 'default:alice:ws',
      ]);
      expect(store.list({ ownedBy: 'mallory' }).map((s) => s.sessionKey)).toEqual(['default:alice:telegram']);
      expect(store.list({ ownedBy: 'alice', limit: 1 }).map((s) => s.sessionKey)).toEqual(['default:bob:ws']);
      store.append('default:alice:ws', [user('bump')], T0 + 1000);
      expect(store.list({ limit: 1 })[0]?.sessionKey).toBe('default:alice:ws');
    });

    it('replaces metadata and reports whether the session exists', () => {
      store.ensure(newSession('default:alice:ws', { metadata: { a: 1 } }));
      expect(store.updateMetadata('default:alice:ws', { b: [1, 2] }, T0 + 9)).toBe(true);
      expect(store.get('default:alice:ws')).toMatchObject({ metadata: { b: [1, 2] }, updatedAt: T0 + 9 });
      expect(store.updateMetadata('default:nobody:ws', {}, T0)).toBe(false);
    });

    it('clears the cached approval decisions of one session only', () => {
      store.ensure(newSession('default:alice:ws'));
      fixture.recordApprovalDecision('default:alice:ws', 'shell');
      fixture.recordApprovalDecision('default:alice:ws', 'browser');
      fixture.recordApprovalDecision('default:bob:ws', 'shell');
      expect(store.clearApprovalDecisions('default:alice:ws')).toBe(2);
      expect(store.clearApprovalDecisions('default:alice:ws')).toBe(0);
      expect(store.clearApprovalDecisions('default:bob:ws')).toBe(1);
    });
  });
}
