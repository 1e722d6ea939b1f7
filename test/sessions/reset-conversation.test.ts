// session.reset_conversation: history and transcript cleared best-effort, memory accepted as a no-op, serialised with live turns.
import { afterEach, describe, expect, it } from 'vitest';
import { deferred } from './scripted-runner.js';
import { callerOf, createServiceFixture, type ServiceFixture } from './service-fixture.js';

const signal = new AbortController().signal;

describe('session reset_conversation', () => {
  let fx: ServiceFixture;
  afterEach(async () => {
    await fx.close();
  });

  it('clears durable history and the working transcript, keeps metadata, and omits memoriesDeleted', async () => {
    fx = createServiceFixture();
    await fx.sessions.send({ key: 'acme:a:ws', message: 'x', caller: callerOf('c1'), signal });
    const result = await fx.sessions.resetConversation({ sessionKey: 'acme:a:ws', memory: false, purgeDerived: false });
    expect(result).toEqual({ sessionKey: 'acme:a:ws', lcdRowsDeleted: 2, sessionMessagesCleared: 2 });
    expect(await fx.store.get('acme:a:ws')).toMatchObject({ messageCount: 0, metadata: { requestedBy: 'c1' } });
  });

  it('omits memoriesDeleted when no memory store is wired, even when asked', async () => {
    fx = createServiceFixture();
    await fx.sessions.send({ key: 'default:a:ws', message: 'x', caller: callerOf('anyone'), signal });
    expect(await fx.sessions.resetConversation({ sessionKey: 'default:a:ws', memory: true, purgeDerived: false })).toEqual({
      sessionKey: 'default:a:ws', lcdRowsDeleted: 2, sessionMessagesCleared: 2,
    });
  });

  it('answers zero counts for a session that does not exist (each layer is best-effort)', async () => {
    fx = createServiceFixture();
    expect(await fx.sessions.resetConversation({ sessionKey: 'default:ghost:ws', memory: false, purgeDerived: false })).toEqual({
      sessionKey: 'default:ghost:ws', lcdRowsDeleted: 0, sessionMessagesCleared: 0,
    });
    await expect(fx.sessions.resetConversation({ sessionKey: 'ghost', memory: false, purgeDerived: false })).rejects.toMatchObject({ kind: 'invalid_params' });
  });

  it('waits for a live turn on the same session, then clears what that turn wrote', async () => {
    fx = createServiceFixture();
    const gate = deferred();
    fx.runner.script({ gate: gate.promise });
    const turn = fx.sessions.send({ key: 'default:a:ws', message: 'in flight', caller: callerOf('anyone'), signal });
    await new Promise((resolve) => setImmediate(resolve));
    let isResetDone = false;
    const reset = fx.sessions.resetConversation({ sessionKey: 'default:a:ws', memory: false, purgeDerived: false }).then((result) => {
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
});
