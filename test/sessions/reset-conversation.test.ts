// session.reset_conversation: history and transcript cleared best-effort, the memory layer over real SQLite, serialised with live turns.
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/obs/logger.js';
import { createDispatcher, createRegistry, type JsonRpcResponse } from '../../src/rpc/index.js';
import { sessionMethods } from '../../src/sessions/index.js';
import type { MemoryPort, NewMemoryEntry } from '../../src/store/index.js';
import { deferred } from './scripted-runner.js';
import { callerOf, createServiceFixture, T0, type ServiceFixture } from './service-fixture.js';

const signal = new AbortController().signal;

describe('session reset_conversation', () => {
  let fx: ServiceFixture;
  afterEach(async () => {
    await fx.close();
  });

  it('clears durable history and the working transcript, keeps metadata, and omits memoriesDeleted', async () => {
    fx = createServiceFixture({ tenants: { c1: ['acme'] } });
    await fx.sessions.send({ key: 'acme:a:ws', message: 'x', caller: callerOf('c1'), signal });
    const result = await fx.sessions.resetConversation({ sessionKey: 'acme:a:ws', memory: false, purgeDerived: false });
    expect(result).toEqual({ sessionKey: 'acme:a:ws', lcdRowsDeleted: 2, sessionMessagesCleared: 2 });
    expect(await fx.store.get('acme:a:ws')).toMatchObject({ messageCount: 0, metadata: { requestedBy: 'c1' } });
  });

  it('omits memoriesDeleted when no memory store is wired, even when asked', async () => {
    fx = createServiceFixture({ tenants: { c1: ['acme'] } });
    await fx.sessions.send({ key: 'default:a:ws', message: 'x', caller: callerOf('anyone'), signal });
    expect(
      await fx.sessions.resetConversation({ sessionKey: 'default:a:ws', memory: true, purgeDerived: false }),
    ).toEqual({
      sessionKey: 'default:a:ws',
      lcdRowsDeleted: 2,
      sessionMessagesCleared: 2,
    });
  });

  it('answers zero counts for a session that does not exist (each layer is best-effort)', async () => {
    fx = createServiceFixture({ tenants: { c1: ['acme'] } });
    expect(
      await fx.sessions.resetConversation({ sessionKey: 'default:ghost:ws', memory: false, purgeDerived: false }),
    ).toEqual({
      sessionKey: 'default:ghost:ws',
      lcdRowsDeleted: 0,
      sessionMessagesCleared: 0,
    });
    await expect(
      fx.sessions.resetConversation({ sessionKey: 'ghost', memory: false, purgeDerived: false }),
    ).rejects.toMatchObject({ kind: 'invalid_params' });
  });

  it('waits for a live turn on the same session, then clears what that turn wrote', async () => {
    fx = createServiceFixture({ tenants: { c1: ['acme'] } });
    const gate = deferred();
    fx.runner.script({ gate: gate.promise });
    const turn = fx.sessions.send({ key: 'default:a:ws', message: 'in flight', caller: callerOf('anyone'), signal });
    await new Promise((resolve) => setImmediate(resolve));
    let isResetDone = false;
    const reset = fx.sessions
      .resetConversation({ sessionKey: 'default:a:ws', memory: false, purgeDerived: false })
      .then((result) => {
        isResetDone = true;
        return result;
      });
    await new Promise((resolve) => setImmediate(resolve));
    expect(isResetDone).toBe(false);
    gate.resolve();
    await turn;
    expect(await reset).toEqual({ sessionKey: 'default:a:ws', lcdRowsDeleted: 2, sessionMessagesCleared: 2 });
    expect(await fx.store.history('default:a:ws')).toEqual([]);
  });

  describe('memory layer', () => {
    const memoryOf = (): MemoryPort => {
      if (fx.memory === undefined) throw new Error('the fixture was built without a memory store');
      return fx.memory;
    };
    const entry = (id: string, fields: Partial<NewMemoryEntry>): NewMemoryEntry => ({
      id,
      tenantId: 'acme',
      agentId: 'default',
      content: `memory ${id}`,
      memoryType: 'fact',
      trustLevel: 'trusted',
      sourceSessionKey: 'acme:a:ws',
      createdAt: T0,
      metadata: {},
      derivedFrom: [],
      ...fields,
    });

    /** The conversation's two memories, and around them what the reset must leave (or unlink) by rule 4. */
    async function seed(memory: MemoryPort): Promise<void> {
      await memory.insert(entry('m1', {}));
      await memory.insert(entry('m2', { memoryType: 'preference' }));
      await memory.insert(entry('other-session', { sourceSessionKey: 'acme:b:ws' }));
      await memory.insert(entry('other-agent', { agentId: 'helper' }));
      await memory.insert(entry('other-tenant', { tenantId: 'globex' }));
      await memory.insert(entry('operator', { sourceSessionKey: null }));
      await memory.insert(
        entry('obs-only-m1', { memoryType: 'observation', sourceSessionKey: null, derivedFrom: ['m1'] }),
      );
      await memory.insert(
        entry('obs-mixed', { memoryType: 'observation', sourceSessionKey: null, derivedFrom: ['m1', 'other-session'] }),
      );
    }
    const remainingIds = async (memory: MemoryPort) =>
      (await memory.browse({}, { offset: 0, limit: 100 })).entries.map((found) => found.id).sort();

    it("deletes the conversation's memories in its agent and tenant scope and unlinks them from observations", async () => {
      fx = createServiceFixture({ memory: true, tenants: { c1: ['acme'] } });
      const memory = memoryOf();
      await fx.sessions.send({ key: 'acme:a:ws', message: 'x', caller: callerOf('c1'), signal });
      await seed(memory);
      expect(
        await fx.sessions.resetConversation({ sessionKey: 'acme:a:ws', memory: true, purgeDerived: false }),
      ).toEqual({
        sessionKey: 'acme:a:ws',
        lcdRowsDeleted: 2,
        sessionMessagesCleared: 2,
        memoriesDeleted: 3,
      });
      expect(await remainingIds(memory)).toEqual([
        'obs-mixed',
        'operator',
        'other-agent',
        'other-session',
        'other-tenant',
      ]);
      expect((await memory.get('obs-mixed', {}))?.derivedFrom).toEqual(['other-session']);
    });

    it('with purge_derived also deletes every observation in the scope, even those backed by other sessions', async () => {
      fx = createServiceFixture({ memory: true, tenants: { c1: ['acme'] } });
      const memory = memoryOf();
      await fx.sessions.send({ key: 'acme:a:ws', message: 'x', caller: callerOf('c1'), signal });
      await seed(memory);
      expect(
        await fx.sessions.resetConversation({ sessionKey: 'acme:a:ws', memory: true, purgeDerived: true }),
      ).toMatchObject({ memoriesDeleted: 4 });
      expect(await remainingIds(memory)).toEqual(['operator', 'other-agent', 'other-session', 'other-tenant']);
    });

    it('omits memoriesDeleted and keeps every memory when memory is not asked for, even with a store wired', async () => {
      fx = createServiceFixture({ memory: true, tenants: { c1: ['acme'] } });
      await fx.sessions.send({ key: 'acme:a:ws', message: 'x', caller: callerOf('c1'), signal });
      await seed(memoryOf());
      expect(
        await fx.sessions.resetConversation({ sessionKey: 'acme:a:ws', memory: false, purgeDerived: true }),
      ).toEqual({
        sessionKey: 'acme:a:ws',
        lcdRowsDeleted: 2,
        sessionMessagesCleared: 2,
      });
      expect(await remainingIds(memoryOf())).toHaveLength(8);
    });

    it('reports 0 and still clears history and transcript when the memory delete fails', async () => {
      fx = createServiceFixture({ memory: true, tenants: { c1: ['acme'] } });
      await fx.sessions.send({ key: 'acme:a:ws', message: 'x', caller: callerOf('c1'), signal });
      await seed(memoryOf());
      fx.db.exec(
        "CREATE TRIGGER refuse_memory_delete BEFORE DELETE ON memory_entries BEGIN SELECT RAISE(ABORT, 'disk says no'); END",
      );
      expect(
        await fx.sessions.resetConversation({ sessionKey: 'acme:a:ws', memory: true, purgeDerived: false }),
      ).toEqual({
        sessionKey: 'acme:a:ws',
        lcdRowsDeleted: 2,
        sessionMessagesCleared: 2,
        memoriesDeleted: 0,
      });
      expect(await fx.store.history('acme:a:ws')).toEqual([]);
      expect(await remainingIds(memoryOf())).toHaveLength(8);
    });

    it("deletes a vanished session's memories across its tenant, since its agent is no longer known", async () => {
      fx = createServiceFixture({ memory: true, tenants: { c1: ['acme'] } });
      await seed(memoryOf());
      expect(
        await fx.sessions.resetConversation({ sessionKey: 'acme:a:ws', memory: true, purgeDerived: false }),
      ).toEqual({
        sessionKey: 'acme:a:ws',
        lcdRowsDeleted: 0,
        sessionMessagesCleared: 0,
        memoriesDeleted: 4,
      });
      expect(await remainingIds(memoryOf())).toEqual(['obs-mixed', 'operator', 'other-session', 'other-tenant']);
    });

    it('answers memoriesDeleted over JSON-RPC only when memory is true', async () => {
      fx = createServiceFixture({ memory: true, tenants: { c1: ['acme'] } });
      await seed(memoryOf());
      const dispatcher = createDispatcher({
        registry: createRegistry(sessionMethods({ sessions: fx.sessions })),
        maxBatchSize: 50,
      });
      const ctx = {
        caller: { clientId: 'admin', scopes: ['*' as const] },
        transport: 'http' as const,
        log: createLogger({ level: 'silent' }),
        signal,
      };
      const call = async (params: unknown) =>
        (await dispatcher.dispatch(
          { jsonrpc: '2.0', id: 1, method: 'session.reset_conversation', params },
          ctx,
        )) as JsonRpcResponse;
      expect(await call({ session_key: 'acme:b:ws' })).toMatchObject({
        result: { sessionKey: 'acme:b:ws', lcdRowsDeleted: 0, sessionMessagesCleared: 0 },
      });
      expect(await call({ session_key: 'acme:b:ws' })).not.toHaveProperty('result.memoriesDeleted');
      expect(await call({ session_key: 'acme:b:ws', memory: true })).toMatchObject({ result: { memoriesDeleted: 1 } });
      expect(await remainingIds(memoryOf())).not.toContain('other-session');
    });
  });
});
