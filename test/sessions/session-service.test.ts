// The session service: turns on string keys, caller-scoped history and status, delete/reset/export, serialisation.
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors.js';
import { callerOf, createServiceFixture, staticAgents, T0, type ServiceFixture } from './service-fixture.js';
import { deferred } from './scripted-runner.js';

const signal = new AbortController().signal;

describe('session service', () => {
  let fx: ServiceFixture;
  afterEach(async () => {
    await fx.close();
  });

  it('send runs a turn on the key, creating the session with its derived kind', async () => {
    fx = createServiceFixture();
    const result = await fx.sessions.send({
      key: 'default:alice:group-7',
      message: 'hello',
      caller: callerOf('rpc-client'),
      signal,
    });
    expect(result).toEqual({
      sessionKey: 'default:alice:group-7',
      agentId: 'default',
      response: 'Echo: hello',
      tokensUsed: { input: 10, output: 5, total: 15 },
      finishReason: 'stop',
    });
    expect(fx.runner.requests[0]).toMatchObject({
      sessionKey: 'default:alice:group-7',
      message: 'hello',
      caller: { clientId: 'rpc-client', isAdmin: false },
      agentId: 'default',
    });
    const session = await fx.store.get('default:alice:group-7');
    expect(session).toMatchObject({ kind: 'group', messageCount: 2, metadata: { requestedBy: 'rpc-client' } });
    expect(fx.events.filter((event) => event.name === 'session:created')).toHaveLength(1);
  });

  it('send refuses a malformed key and an unknown agent', async () => {
    fx = createServiceFixture({ agents: staticAgents({ default: { name: 'Assistant' } }) });
    await expect(
      fx.sessions.send({ key: 'alice', message: 'x', caller: callerOf('anyone'), signal }),
    ).rejects.toMatchObject({ kind: 'invalid_params', details: { param: 'key' } });
    await expect(
      fx.sessions.send({ key: 'default:a:ws', message: 'x', agentId: 'ghost', caller: callerOf('anyone'), signal }),
    ).rejects.toMatchObject({ kind: 'not_found', details: { param: 'agentId' } });
    expect(fx.runner.requests).toHaveLength(0);
  });

  it('continues an existing session with its own agent when the request names none', async () => {
    fx = createServiceFixture({ agents: staticAgents({ default: { name: 'Assistant' }, coder: { name: 'Coder' } }) });
    await fx.sessions.send({
      key: 'default:a:ws',
      message: 'one',
      agentId: 'coder',
      caller: callerOf('anyone'),
      signal,
    });
    await fx.sessions.send({ key: 'default:a:ws', message: 'two', caller: callerOf('anyone'), signal });
    expect(fx.runner.requests.map((request) => request.agentId)).toEqual(['coder', 'coder']);
  });

  it('runs the turns of one session one at a time, and of different sessions side by side', async () => {
    fx = createServiceFixture();
    const gateA = deferred();
    const gateB = deferred();
    fx.runner.script({ gate: gateA.promise }, { gate: gateB.promise });
    const first = fx.sessions.send({ key: 'default:a:ws', message: 'first', caller: callerOf('anyone'), signal });
    const second = fx.sessions.send({ key: 'default:a:ws', message: 'second', caller: callerOf('anyone'), signal });
    await new Promise((resolve) => setImmediate(resolve));
    expect(fx.runner.requests.map((request) => request.message)).toEqual(['first']);
    gateA.resolve();
    await first;
    gateB.resolve();
    await second;
    expect((await fx.store.history('default:a:ws')).map((message) => message.content)).toEqual([
      'first',
      'Echo: first',
      'second',
      'Echo: second',
    ]);
    expect(fx.runner.concurrency.max).toBe(1);

    const gateC = deferred();
    fx.runner.script({ gate: gateC.promise });
    const other = fx.sessions.send({ key: 'default:b:ws', message: 'c', caller: callerOf('anyone'), signal });
    await fx.sessions.send({ key: 'default:c:ws', message: 'd', caller: callerOf('anyone'), signal });
    gateC.resolve();
    await other;
  });

  it("history returns the caller's newest session, or the one on channelId, oldest message first", async () => {
    fx = createServiceFixture();
    await fx.sessions.send({ key: 'default:rpc-client:ws', message: 'on ws', caller: callerOf('rpc-client'), signal });
    fx.advance(1000);
    await fx.sessions.send({
      key: 'default:someone:telegram',
      message: 'on telegram',
      caller: callerOf('rpc-client'),
      signal,
    });
    fx.advance(1000);
    await fx.sessions.send({ key: 'default:other:ws', message: 'not mine', caller: callerOf('other-client'), signal });
    expect(await fx.sessions.history({ clientId: 'rpc-client' })).toEqual([
      { role: 'user', content: 'on telegram', timestamp: T0 + 1000 },
      { role: 'assistant', content: 'Echo: on telegram', timestamp: T0 + 1000 },
    ]);
    expect((await fx.sessions.history({ clientId: 'rpc-client', channelId: 'ws' })).map((m) => m.content)).toEqual([
      'on ws',
      'Echo: on ws',
    ]);
    expect(await fx.sessions.history({ clientId: 'rpc-client', channelId: 'discord' })).toEqual([]);
    expect(await fx.sessions.history({ clientId: 'nobody' })).toEqual([]);
    fx.advance(1000);
    const { sessionKey } = await fx.subAgents.spawn({
      parentKey: 'default:rpc-client:ws',
      task: 'sub task',
      caller: callerOf('rpc-client'),
    });
    await fx.subAgents.whenIdle();
    expect((await fx.sessions.history({ clientId: 'rpc-client' })).map((m) => m.content)).toEqual([
      'on telegram',
      'Echo: on telegram',
    ]);
    expect(
      (await fx.sessions.history({ clientId: 'rpc-client', channelId: 'subagent' })).map((m) => m.content),
    ).toEqual(['sub task', 'Echo: sub task']);
    expect((await fx.store.get(sessionKey))?.kind).toBe('sub-agent');
  });

  it('history and status skip a session whose key names the caller but another client created', async () => {
    fx = createServiceFixture();
    await fx.sessions.send({ key: 'default:rpc-client:ws', message: 'planted', caller: callerOf('mallory'), signal });
    expect(await fx.sessions.history({ clientId: 'rpc-client' })).toEqual([]);
    expect(await fx.sessions.history({ clientId: 'rpc-client', channelId: 'ws' })).toEqual([]);
    expect(await fx.sessions.status('rpc-client')).toMatchObject({ tokensUsed: { totalTokens: 0 }, stepsExecuted: 0 });
    expect((await fx.sessions.history({ clientId: 'mallory' })).map((m) => m.content)).toEqual([
      'planted',
      'Echo: planted',
    ]);
  });

  it("send refuses another client's session before the turn runs and leaves it untouched; an admin reaches it", async () => {
    fx = createServiceFixture();
    await fx.sessions.send({ key: 'default:alice:ws', message: 'mine', caller: callerOf('alice'), signal });
    const before = await fx.store.get('default:alice:ws');
    fx.advance(1000);
    await expect(
      fx.sessions.send({ key: 'default:alice:ws', message: 'let me in', caller: callerOf('mallory'), signal }),
    ).rejects.toMatchObject({
      kind: 'forbidden',
      message: 'Session default:alice:ws belongs to another client',
    });
    expect(await fx.store.get('default:alice:ws')).toEqual(before);
    expect(fx.runner.requests.map((request) => request.message)).toEqual(['mine']);
    await fx.sessions.send({ key: 'default:alice:ws', message: 'admin check', caller: callerOf('root', true), signal });
    expect(await fx.store.get('default:alice:ws')).toMatchObject({ ownerId: 'alice', messageCount: 4 });
  });

  it('search sees only the sessions the given client owns', async () => {
    fx = createServiceFixture();
    await fx.sessions.send({ key: 'default:alice:ws', message: 'quarterly budget', caller: callerOf('alice'), signal });
    await fx.sessions.send({
      key: 'default:alice:telegram',
      message: 'budget secrets',
      caller: callerOf('mallory'),
      signal,
    });
    expect((await fx.sessions.search('budget', 10, 'alice')).map((hit) => hit.sessionKey)).toEqual([
      'default:alice:ws',
    ]);
    expect((await fx.sessions.search('budget', 10)).map((hit) => hit.sessionKey).sort()).toEqual([
      'default:alice:telegram',
      'default:alice:ws',
    ]);
  });

  it('status reports the model, agent, totals and steps of the caller session', async () => {
    fx = createServiceFixture({
      agents: staticAgents({ default: { name: 'Assistant', provider: 'local', model: 'llama3.2', maxSteps: 5 } }),
    });
    expect(await fx.sessions.status('rpc-client')).toEqual({
      model: 'local/llama3.2',
      agentName: 'Assistant',
      tokensUsed: { totalTokens: 0, totalCost: 0 },
      stepsExecuted: 0,
      maxSteps: 5,
    });
    fx.runner.script(
      { tokens: { input: 100, output: 20 }, costUsd: 0.5, steps: 2 },
      { tokens: { input: 30, output: 10 }, costUsd: 0.25, steps: 3 },
    );
    await fx.sessions.send({ key: 'default:x:ws', message: 'a', caller: callerOf('rpc-client'), signal });
    await fx.sessions.send({ key: 'default:x:ws', message: 'b', caller: callerOf('rpc-client'), signal });
    expect(await fx.sessions.status('rpc-client')).toEqual({
      model: 'local/llama3.2',
      agentName: 'Assistant',
      tokensUsed: { totalTokens: 160, totalCost: 0.75 },
      stepsExecuted: 5,
      maxSteps: 5,
    });
  });

  it('status without an agent registry still answers, with nulls for what it cannot know', async () => {
    fx = createServiceFixture();
    expect(await fx.sessions.status('rpc-client')).toEqual({
      model: null,
      agentName: null,
      tokensUsed: { totalTokens: 0, totalCost: 0 },
      stepsExecuted: 0,
      maxSteps: null,
    });
    await fx.sessions.send({ key: 'default:rpc-client:ws', message: 'x', caller: callerOf('rpc-client'), signal });
    expect(await fx.sessions.status('rpc-client')).toMatchObject({
      agentName: 'default',
      tokensUsed: { totalTokens: 15 },
      stepsExecuted: 1,
    });
  });

  it('lists sessions by kind and by minutes since their last update', async () => {
    fx = createServiceFixture();
    await fx.sessions.send({ key: 'default:a:ws', message: 'x', caller: callerOf('anyone'), signal });
    fx.advance(10 * 60_000);
    await fx.sessions.send({ key: 'default:a:group-1', message: 'y', caller: callerOf('anyone'), signal });
    const keys = async (filter: Omit<Parameters<typeof fx.sessions.list>[0], 'limit'>) =>
      (await fx.sessions.list({ ...filter, limit: 10 })).sessions.map((entry) => entry.sessionKey);
    const all = await fx.sessions.list({ limit: 10 });
    expect(all.sessions.map((entry) => entry.sessionKey)).toEqual(['default:a:group-1', 'default:a:ws']);
    expect(all.nextCursor).toBeNull();
    expect(all.sessions[0]).toEqual({
      sessionKey: 'default:a:group-1',
      agentId: 'default',
      messageCount: 2,
      updatedAt: T0 + 600_000,
      metadata: expect.any(Object),
      ownerId: 'anyone',
      channelId: 'group-1',
      outcome: 'completed',
      tokens: 15,
      costUsd: 0.001,
    });
    expect(await keys({ kind: 'all' })).toHaveLength(2);
    expect(await keys({ kind: 'group' })).toEqual(['default:a:group-1']);
    expect(await keys({ kind: 'dm' })).toEqual(['default:a:ws']);
    expect(await keys({ kind: 'sub-agent' })).toEqual([]);
    expect(await keys({ sinceMinutes: 5 })).toEqual(['default:a:group-1']);
  });

  it('lists one page at a time: nextCursor continues where the page ended and is null on the last page', async () => {
    fx = createServiceFixture();
    for (const peer of ['p1', 'p2', 'p3']) {
      await fx.sessions.send({ key: `default:a:ws:${peer}`, message: 'x', caller: callerOf('anyone'), signal });
      fx.advance(1000);
    }
    const first = await fx.sessions.list({ limit: 2 });
    expect(first.sessions.map((entry) => entry.sessionKey)).toEqual(['default:a:ws:p3', 'default:a:ws:p2']);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await fx.sessions.list({ limit: 2, cursor: first.nextCursor ?? '' });
    expect(second.sessions.map((entry) => entry.sessionKey)).toEqual(['default:a:ws:p1']);
    expect(second.nextCursor).toBeNull();
    await expect(fx.sessions.list({ limit: 2, cursor: 'not-a-cursor' })).rejects.toMatchObject({
      kind: 'invalid_params',
      details: { param: 'cursor' },
    });
  });

  it('delete returns the transcript as a final copy; export shows everything; both refuse unknown sessions', async () => {
    fx = createServiceFixture();
    await fx.sessions.send({ key: 'default:a:ws', message: 'keep me', caller: callerOf('c1'), signal });
    const exported = await fx.sessions.exportSession('default:a:ws');
    expect(exported).toMatchObject({
      sessionKey: 'default:a:ws',
      messageCount: 2,
      createdAt: T0,
      updatedAt: T0,
      metadata: { requestedBy: 'c1' },
    });
    expect(exported.messages.map((m) => m.content)).toEqual(['keep me', 'Echo: keep me']);
    const deleted = await fx.sessions.deleteSession('default:a:ws');
    expect(deleted).toEqual({
      sessionKey: 'default:a:ws',
      deleted: true,
      transcript: { ...exported, agentId: 'default', kind: 'dm' },
    });
    expect(await fx.store.get('default:a:ws')).toBeUndefined();
    await expect(fx.sessions.deleteSession('default:a:ws')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(fx.sessions.exportSession('default:a:ws')).rejects.toThrow(GatewayError);
  });

  it('reset clears messages, keeps metadata, and reports the previous count', async () => {
    fx = createServiceFixture();
    await fx.sessions.send({ key: 'default:a:ws', message: 'x', caller: callerOf('c1'), signal });
    expect(await fx.sessions.reset('default:a:ws')).toEqual({
      sessionKey: 'default:a:ws',
      reset: true,
      previousMessageCount: 2,
    });
    expect(await fx.store.get('default:a:ws')).toMatchObject({ messageCount: 0, metadata: { requestedBy: 'c1' } });
    await expect(fx.sessions.reset('default:none:ws')).rejects.toMatchObject({ kind: 'not_found' });
  });
});
