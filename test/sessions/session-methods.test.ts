// session.* over JSON-RPC dispatch: params per the catalogue, scopes, result shapes, errors and notifications.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/obs/logger.js';
import { runMethods } from '../../src/runs/index.js';
import { sessionMethods } from '../../src/sessions/index.js';
import {
  buildOpenRpcDocument,
  createDispatcher,
  createRegistry,
  type DispatchContext,
  type Dispatcher,
  type JsonRpcResponse,
} from '../../src/rpc/index.js';
import type { Scope } from '../../src/config/index.js';
import { createServiceFixture, staticAgents, T0, type ServiceFixture } from './service-fixture.js';
import { deferred } from './scripted-runner.js';

const log = createLogger({ level: 'silent' });

const ADMIN_METHODS = [
  'session.list',
  'session.delete',
  'session.reset',
  'session.export',
  'session.compact',
  'session.reset_conversation',
];
const RPC_METHODS = [
  'session.send',
  'session.spawn',
  'session.status',
  'session.history',
  'session.search',
  'session.run_status',
];

function caller(clientId: string, scopes: Scope[]): DispatchContext {
  return { caller: { clientId, scopes }, transport: 'http', log, signal: new AbortController().signal };
}

const admin = caller('admin', ['*']);
const rpcClient = caller('rpc-client', ['rpc']);
const adminOnly = caller('admin-only', ['admin']);

describe('session methods', () => {
  let fx: ServiceFixture;
  let dispatcher: Dispatcher;
  let nextId = 0;

  async function call(
    ctx: DispatchContext,
    method: string,
    params?: unknown,
  ): Promise<{ result?: unknown; error?: { code: number; message: string; data?: { param?: string } } }> {
    nextId += 1;
    const response = (await dispatcher.dispatch(
      { jsonrpc: '2.0', id: nextId, method, ...(params === undefined ? {} : { params }) },
      ctx,
    )) as JsonRpcResponse;
    return response;
  }

  beforeEach(() => {
    fx = createServiceFixture({
      agents: staticAgents({ default: { name: 'Assistant', provider: 'local', model: 'llama3.2', maxSteps: 4 } }),
    });
    dispatcher = createDispatcher({
      registry: createRegistry([...sessionMethods({ sessions: fx.sessions }), ...runMethods(fx.subAgents)]),
      maxBatchSize: 50,
    });
  });
  afterEach(async () => {
    await fx.close();
  });

  it('declares the twelve session methods with the catalogue scopes', () => {
    const registry = createRegistry([...sessionMethods({ sessions: fx.sessions }), ...runMethods(fx.subAgents)]);
    const scopes = Object.fromEntries(registry.list().map((method) => [method.name, method.scope]));
    expect(Object.keys(scopes).sort()).toEqual([...ADMIN_METHODS, ...RPC_METHODS].sort());
    for (const name of ADMIN_METHODS) expect(scopes[name]).toBe('admin');
    for (const name of RPC_METHODS) expect(scopes[name]).toBe('rpc');
    const documented = buildOpenRpcDocument(registry, 'test').methods.find(
      (method) => method.name === 'session.reset_conversation',
    );
    expect(documented?.params.map((param) => [param.name, param.required])).toEqual([
      ['session_key', true],
      ['memory', false],
      ['purge_derived', false],
    ]);
  });

  it('refuses every admin method to an rpc-only token with -32603 naming the scope', async () => {
    for (const method of ADMIN_METHODS) {
      expect(await call(rpcClient, method, { session_key: 'default:a:ws' })).toEqual({
        jsonrpc: '2.0',
        id: nextId,
        error: { code: -32603, message: "Insufficient scope: requires 'admin'", data: { kind: 'forbidden' } },
      });
    }
  });

  it('refuses the rpc methods to an admin-only token, and lets rpc and * tokens call them', async () => {
    expect(await call(adminOnly, 'session.status')).toMatchObject({
      error: { code: -32603, message: "Insufficient scope: requires 'rpc'", data: { kind: 'forbidden' } },
    });
    expect(await call(rpcClient, 'session.status')).toHaveProperty('result');
    expect(await call(admin, 'session.status')).toHaveProperty('result');
  });

  it('session.send runs a turn and returns the agent response', async () => {
    expect(await call(rpcClient, 'session.send', { key: 'default:rpc-client:ws', message: 'hi' })).toMatchObject({
      result: {
        sessionKey: 'default:rpc-client:ws',
        agentId: 'default',
        response: 'Echo: hi',
        tokensUsed: { input: 10, output: 5, total: 15 },
        finishReason: 'stop',
      },
    });
    expect(fx.runner.requests[0]?.caller).toEqual({ clientId: 'rpc-client', isAdmin: false });
    expect(await call(rpcClient, 'session.send', { key: 'rpc-client:ws', message: 'hi' })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'key' } },
    });
    expect(await call(rpcClient, 'session.send', { session_key: 'default:a:ws', message: 'hi' })).toMatchObject({
      error: { code: -32602 },
    });
    expect(
      await call(rpcClient, 'session.send', { key: 'default:a:ws', message: 'hi', agentId: 'ghost' }),
    ).toMatchObject({
      error: { code: -32603, message: 'Unknown agent: ghost', data: { kind: 'not_found', param: 'agentId' } },
    });
  });

  it('session.history and session.status answer for the caller', async () => {
    await call(rpcClient, 'session.send', { key: 'default:rpc-client:ws', message: 'mine' });
    await call(admin, 'session.send', { key: 'default:admin:ws', message: 'not yours' });
    expect(await call(rpcClient, 'session.history')).toMatchObject({
      result: {
        messages: [
          { role: 'user', content: 'mine', timestamp: T0 },
          { role: 'assistant', content: 'Echo: mine', timestamp: T0 },
        ],
      },
    });
    expect(await call(rpcClient, 'session.history', { channelId: 'telegram' })).toMatchObject({
      result: { messages: [] },
    });
    expect(await call(rpcClient, 'session.history', { channelId: '' })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'channelId' } },
    });
    expect(await call(rpcClient, 'session.status')).toEqual({
      jsonrpc: '2.0',
      id: nextId,
      result: {
        model: 'local/llama3.2',
        agentName: 'Assistant',
        tokensUsed: { totalTokens: 15, totalCost: 0.001 },
        stepsExecuted: 1,
        maxSteps: 4,
      },
    });
    expect(await call(rpcClient, 'session.status', { channelId: 'ws' })).toMatchObject({ error: { code: -32602 } });
  });

  it('session.spawn answers running at once and notifies the requesting client; run_status follows the run', async () => {
    fx.runner.script({ response: 'sub result', tokens: { input: 7, output: 3 }, costUsd: 0.01 });
    const spawned = await call(rpcClient, 'session.spawn', { parentKey: 'default:rpc-client:ws', task: 'research' });
    expect(spawned).toMatchObject({
      result: { runId: 'run-1', sessionKey: 'default:rpc-client:subagent:run-1', status: 'running' },
    });
    await fx.subAgents.whenIdle();
    const status = await call(rpcClient, 'session.run_status', { run_id: 'run-1' });
    expect(status.result).toEqual({
      runId: 'run-1',
      status: 'completed',
      agentId: 'default',
      task: 'research',
      sessionKey: 'default:rpc-client:subagent:run-1',
      startedAt: T0,
      completedAt: T0,
      runtimeMs: 0,
      response: 'sub result',
      tokensUsed: { input: 7, output: 3, total: 10 },
      cost: 0.01,
    });
    expect(fx.notifications).toEqual([
      {
        clientId: 'rpc-client',
        method: 'session.completed',
        params: {
          sessionKey: 'default:rpc-client:subagent:run-1',
          result: { ...(status.result as object), finishReason: 'stop' },
        },
      },
    ]);
    expect(await call(rpcClient, 'session.run_status', { run_id: 'missing' })).toMatchObject({
      error: { code: -32603, message: 'Run not found: missing', data: { kind: 'not_found', param: 'run_id' } },
    });
    expect(await call(rpcClient, 'session.run_status', { runId: 'run-1' })).toMatchObject({ error: { code: -32602 } });
    expect(await call(rpcClient, 'session.spawn', { parentKey: 'bad', task: 'x' })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'parentKey' } },
    });
  });

  it('session.spawn with a failing turn leaves a failed run with its error', async () => {
    fx.runner.script({ finishReason: 'error', error: 'provider refused', response: '' });
    await call(rpcClient, 'session.spawn', { parentKey: 'default:rpc-client:ws', task: 'doomed' });
    await fx.subAgents.whenIdle();
    expect((await call(rpcClient, 'session.run_status', { run_id: 'run-1' })).result).toMatchObject({
      status: 'failed',
      error: 'provider refused',
    });
    expect(fx.notifications[0]?.params).toMatchObject({
      result: { status: 'failed', error: 'provider refused', finishReason: 'error' },
    });
  });

  it('session.search ranks hits with snippets and bounds its limit', async () => {
    await call(rpcClient, 'session.send', { key: 'default:a:ws', message: 'tell me about volcanoes and volcanoes' });
    await call(rpcClient, 'session.send', {
      key: 'default:b:telegram',
      message: 'one volcanoes fact please, in a long sentence about many things',
    });
    const { result } = await call(rpcClient, 'session.search', { query: 'volcanoes' });
    const hits = result as {
      sessionKey: string;
      agentId: string;
      channelType: string;
      snippet: string;
      score: number;
      timestamp: number;
    }[];
    expect(hits.map((hit) => hit.sessionKey)).toEqual(['default:a:ws', 'default:b:telegram']);
    expect(hits[0]).toEqual({
      sessionKey: 'default:a:ws',
      agentId: 'default',
      channelType: 'ws',
      snippet: expect.stringContaining('[volcanoes]'),
      score: expect.any(Number),
      timestamp: T0,
    });
    expect(await call(rpcClient, 'session.search', { query: 'volcanoes', limit: 1 })).toMatchObject({
      result: [{ sessionKey: 'default:a:ws' }],
    });
    expect(await call(rpcClient, 'session.search', { query: 'volcanoes', limit: 0 })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'limit' } },
    });
    expect(await call(rpcClient, 'session.search', { query: '' })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'query' } },
    });
    expect(await call(rpcClient, 'session.search', { query: 'nothing-matches-this' })).toMatchObject({ result: [] });
  });

  it('session.list filters by kind and since_minutes and returns the catalogue fields', async () => {
    await call(rpcClient, 'session.send', { key: 'default:a:ws', message: 'x' });
    fx.advance(30 * 60_000);
    await call(rpcClient, 'session.send', { key: 'default:a:group-room', message: 'y' });
    await call(rpcClient, 'session.spawn', { parentKey: 'default:a:ws', task: 'z' });
    await fx.subAgents.whenIdle();
    const all = (await call(admin, 'session.list')).result as { sessions: Record<string, unknown>[] };
    expect(all.sessions).toHaveLength(3);
    expect(Object.keys(all.sessions[0] ?? {}).sort()).toEqual([
      'agentId',
      'channelId',
      'costUsd',
      'messageCount',
      'metadata',
      'outcome',
      'ownerId',
      'sessionKey',
      'tokens',
      'updatedAt',
    ]);
    const keys = async (params: unknown) =>
      ((await call(admin, 'session.list', params)).result as { sessions: { sessionKey: string }[] }).sessions.map(
        (s) => s.sessionKey,
      );
    expect(await keys({ kind: 'sub-agent' })).toEqual(['default:a:subagent:run-1']);
    expect(await keys({ kind: 'group' })).toEqual(['default:a:group-room']);
    expect(await keys({ kind: 'dm' })).toEqual(['default:a:ws']);
    expect((await keys({ kind: 'all', since_minutes: 10 })).sort()).toEqual([
      'default:a:group-room',
      'default:a:subagent:run-1',
    ]);
    expect(await call(admin, 'session.list', { kind: 'channel' })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'kind' } },
    });
    expect(await call(admin, 'session.list', { sinceMinutes: 5 })).toMatchObject({
      error: { code: -32602, message: "Invalid params: unknown param 'sinceMinutes'" },
    });
  });

  it('session.list pages with limit and nextCursor and filters by agentId', async () => {
    for (const peer of ['p1', 'p2', 'p3']) {
      await call(rpcClient, 'session.send', { key: `default:a:ws:${peer}`, message: 'x' });
      fx.advance(1000);
    }
    type Page = { sessions: { sessionKey: string }[]; nextCursor: string | null };
    const page = async (params: Record<string, unknown>) => (await call(admin, 'session.list', params)).result as Page;
    const first = await page({ limit: 2 });
    expect(first.sessions.map((s) => s.sessionKey)).toEqual(['default:a:ws:p3', 'default:a:ws:p2']);
    const second = await page({ limit: 2, cursor: first.nextCursor });
    expect(second).toEqual({
      sessions: [expect.objectContaining({ sessionKey: 'default:a:ws:p1' })],
      nextCursor: null,
      total: 3,
      hiddenApiSessions: {},
    });
    expect((await page({ agentId: 'default' })).sessions).toHaveLength(3);
    expect(await page({ agentId: 'nobody' })).toEqual({
      sessions: [],
      nextCursor: null,
      total: 0,
      hiddenApiSessions: {},
    });
    expect(await call(admin, 'session.list', { limit: 0 })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'limit' } },
    });
    expect(await call(admin, 'session.list', { cursor: 'bm90LWEtY3Vyc29y' })).toMatchObject({
      error: { data: { kind: 'invalid_params', param: 'cursor' } },
    });
  });

  it('session.list shows owner, channel, last outcome, tokens and cost, filters by them and counts the matches', async () => {
    fx.runner.script(
      { response: 'a', tokens: { input: 100, output: 20 }, costUsd: 0.5 },
      { finishReason: 'error', error: 'provider refused', response: '', tokens: { input: 1, output: 0 }, costUsd: 0 },
    );
    await call(rpcClient, 'session.send', { key: 'default:a:webchat', message: 'x' });
    fx.advance(1000);
    await call(admin, 'session.send', { key: 'default:a:telegram', message: 'y' });
    fx.advance(1000);
    for (const peer of ['resp_1', 'resp_2']) {
      await call(rpcClient, 'session.send', { key: `default:openai:openai:${peer}`, message: 'z' });
      fx.advance(1000);
    }
    type Row = Record<string, unknown> & { sessionKey: string };
    type Page = { sessions: Row[]; total: number; hiddenApiSessions: Record<string, number> };
    const page = async (params: Record<string, unknown> = {}) =>
      (await call(admin, 'session.list', params)).result as Page;
    const first = await page();
    expect(first.sessions.map((s) => s.sessionKey)).toEqual(['default:a:telegram', 'default:a:webchat']);
    expect(first).toMatchObject({ total: 2, hiddenApiSessions: { openai: 2 }, nextCursor: null });
    expect(first.sessions[1]).toMatchObject({
      ownerId: 'rpc-client',
      channelId: 'webchat',
      outcome: 'completed',
      tokens: 120,
      costUsd: 0.5,
    });
    expect(first.sessions[0]).toMatchObject({ ownerId: 'admin', channelId: 'telegram', outcome: 'error', tokens: 1 });
    const withApi = await page({ includeApi: true, limit: 3 });
    expect(withApi.sessions.map((s) => s.sessionKey)).toEqual([
      'default:openai:openai:resp_2',
      'default:openai:openai:resp_1',
      'default:a:telegram',
    ]);
    expect(withApi).toMatchObject({ total: 4, hiddenApiSessions: {} });
    expect((await page({ channelId: 'openai' })).total).toBe(2);
    expect((await page({ outcome: 'error' })).sessions.map((s) => s.sessionKey)).toEqual(['default:a:telegram']);
    expect((await page({ channelId: 'webchat', outcome: 'error' })).total).toBe(0);
    expect((await page({ fromMs: T0 + 500, toMs: T0 + 1500 })).sessions.map((s) => s.sessionKey)).toEqual([
      'default:a:telegram',
    ]);
    expect(await call(admin, 'session.list', { outcome: 'stop' })).toMatchObject({
      error: { code: -32602, data: { kind: 'invalid_params', param: 'outcome' } },
    });
  });

  it('session.delete, reset, export and reset_conversation require session_key and reject key', async () => {
    for (const method of ['session.delete', 'session.reset', 'session.export', 'session.reset_conversation']) {
      const response = await call(admin, method, { key: 'default:a:ws' });
      expect(response).toMatchObject({ error: { code: -32602 } });
      expect(response.error?.message).toContain("unknown param 'key'");
      expect(await call(admin, method, { session_key: 'a:ws' })).toMatchObject({
        error: { code: -32602, data: { kind: 'invalid_params', param: 'session_key' } },
      });
    }
    expect(await call(admin, 'session.compact', { session_key: 'default:a:ws' })).toMatchObject({
      error: { code: -32602 },
    });
  });

  it('answers -32603 with data.kind not_found for an unknown session', async () => {
    for (const method of ['session.delete', 'session.reset', 'session.export']) {
      expect(await call(admin, method, { session_key: 'default:ghost:ws' })).toEqual({
        jsonrpc: '2.0',
        id: nextId,
        error: {
          code: -32603,
          message: 'Session not found: default:ghost:ws',
          data: { kind: 'not_found', param: 'session_key' },
        },
      });
    }
    expect(await call(admin, 'session.compact', { key: 'default:ghost:ws' })).toMatchObject({
      error: { code: -32603, data: { kind: 'not_found' } },
    });
  });

  it('session.export, reset and delete return the catalogue shapes', async () => {
    await call(rpcClient, 'session.send', { key: 'default:a:ws', message: 'x' });
    const exported = (await call(admin, 'session.export', { session_key: 'default:a:ws' })).result as Record<
      string,
      unknown
    >;
    expect(exported).toEqual({
      sessionKey: 'default:a:ws',
      messageCount: 2,
      createdAt: T0,
      updatedAt: T0,
      metadata: { requestedBy: 'rpc-client', usage: expect.any(Object) },
      messages: [
        { role: 'user', content: 'x', timestamp: T0 },
        { role: 'assistant', content: 'Echo: x', timestamp: T0 },
      ],
    });
    expect(await call(admin, 'session.reset', { session_key: 'default:a:ws' })).toMatchObject({
      result: { sessionKey: 'default:a:ws', reset: true, previousMessageCount: 2 },
    });
    await call(rpcClient, 'session.send', { key: 'default:a:ws', message: 'again' });
    const deleted = await call(admin, 'session.delete', { session_key: 'default:a:ws' });
    expect(deleted).toMatchObject({
      result: {
        sessionKey: 'default:a:ws',
        deleted: true,
        transcript: {
          sessionKey: 'default:a:ws',
          messageCount: 2,
          messages: [{ content: 'again' }, { content: 'Echo: again' }],
        },
      },
    });
    expect(await call(admin, 'session.export', { session_key: 'default:a:ws' })).toMatchObject({
      error: { code: -32603, data: { kind: 'not_found' } },
    });
  });

  it('session.reset_conversation returns counts only and validates its flags', async () => {
    await call(rpcClient, 'session.send', { key: 'default:a:ws', message: 'x' });
    expect(
      await call(admin, 'session.reset_conversation', {
        session_key: 'default:a:ws',
        memory: true,
        purge_derived: true,
      }),
    ).toEqual({
      jsonrpc: '2.0',
      id: nextId,
      result: { sessionKey: 'default:a:ws', lcdRowsDeleted: 2, sessionMessagesCleared: 2 },
    });
    expect(
      await call(admin, 'session.reset_conversation', { session_key: 'default:a:ws', memory: 'yes' }),
    ).toMatchObject({ error: { code: -32602, data: { kind: 'invalid_params', param: 'memory' } } });
    expect(
      await call(admin, 'session.reset_conversation', { session_key: 'default:a:ws', purgeDerived: true }),
    ).toMatchObject({ error: { code: -32602 } });
  });

  it('session.compact without a model provider answers -32603 with data.kind unavailable', async () => {
    for (let index = 0; index < 5; index += 1)
      await call(rpcClient, 'session.send', { key: 'default:a:ws', message: `m${index}` });
    expect(await call(admin, 'session.compact', { key: 'default:a:ws' })).toEqual({
      jsonrpc: '2.0',
      id: nextId,
      error: {
        code: -32603,
        message: 'Compaction needs a model, and no model provider is configured',
        data: { kind: 'unavailable' },
      },
    });
  });

  it('answers the spawn limit with -32603 and data.kind rate_limited, never the transport rate-limit code -32000', async () => {
    await fx.close();
    fx = createServiceFixture({ options: { maxRunningSpawns: 1 } });
    dispatcher = createDispatcher({
      registry: createRegistry([...sessionMethods({ sessions: fx.sessions }), ...runMethods(fx.subAgents)]),
      maxBatchSize: 50,
    });
    const gate = deferred();
    fx.runner.script({ gate: gate.promise });
    expect(
      await call(rpcClient, 'session.spawn', { parentKey: 'default:rpc-client:ws', task: 'first' }),
    ).toHaveProperty('result.status', 'running');
    expect(await call(rpcClient, 'session.spawn', { parentKey: 'default:rpc-client:ws', task: 'second' })).toEqual({
      jsonrpc: '2.0',
      id: nextId,
      error: { code: -32603, message: 'Too many sub-agent runs in flight (maximum 1)', data: { kind: 'rate_limited' } },
    });
    gate.resolve();
    await fx.subAgents.whenIdle();
  });
});
