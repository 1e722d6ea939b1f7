// Issue 8 item 1 as a new user would try it: an rpc token reaching for the admin's session on every surface.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, TOKEN_IDS, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { openSse } from '../http/rest/sse-reader.js';
import { connectOpen } from '../support/ws-client.js';

interface SessionRow {
  owner_id: string | null;
  message_count: number;
  updated_at: number;
  metadata: string;
}

const ADMIN_KEY = { tenantId: 'default', userId: 'admin', channelId: 'rpc' };
const ADMIN_KEY_STRING = 'default:admin:rpc';
const FORBIDDEN = {
  code: -32603,
  message: `Session ${ADMIN_KEY_STRING} belongs to another client`,
  data: { kind: 'forbidden' },
};

describe('e2e: a session belongs to the token that created it', () => {
  let llm: FakeLlm;
  let gateway: Harness;

  const readRow = (sessionKey: string): SessionRow | undefined => {
    const db = new Database(gateway.paths.databasePath, { readonly: true });
    try {
      return db
        .prepare('SELECT owner_id, message_count, updated_at, metadata FROM sessions WHERE session_key = ?')
        .get(sessionKey) as SessionRow | undefined;
    } finally {
      db.close();
    }
  };
  const usageRows = (sessionKey: string): number => {
    const db = new Database(gateway.paths.databasePath, { readonly: true });
    try {
      return db.prepare('SELECT COUNT(*) FROM token_usage WHERE session_key = ?').pluck().get(sessionKey) as number;
    } finally {
      db.close();
    }
  };
  const rest = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
    fetch(`${gateway.url}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${init.token ?? gateway.tokens.rpc}`, 'content-type': 'application/json' },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });

  let adminResponseId = '';
  let before: SessionRow | undefined;
  let llmCallsBefore = 0;

  beforeAll(async () => {
    llm = await startFakeLlm();
    gateway = await startGateway({
      providers: { local: { type: 'openai-compatible', baseUrl: llm.baseUrl, models: [{ id: 'small' }] } },
      agents: { default: { name: 'Assistant', provider: 'local', model: 'small' } },
    });
    llm.script({ text: 'The launch code is 1234.' });
    const own = await callRpc(gateway.url, gateway.tokens.admin, 'agent.execute', {
      message: 'remember the launch code',
      sessionKey: ADMIN_KEY,
    });
    expect(own).toMatchObject({ result: { response: 'The launch code is 1234.', sessionKey: ADMIN_KEY_STRING } });
    const response = await rest('/v1/responses', {
      method: 'POST',
      token: gateway.tokens.admin,
      body: { model: 'default', input: 'private thought' },
    });
    adminResponseId = ((await response.json()) as { id: string }).id;
    // The turn's usage rows are written by the bus, after the answer; wait for them so the snapshot is settled.
    await vi.waitFor(() => expect(usageRows(ADMIN_KEY_STRING)).toBe(1), { timeout: 5_000, interval: 20 });
    before = readRow(ADMIN_KEY_STRING);
    llmCallsBefore = llm.chatRequests().length;
  });
  afterAll(async () => {
    await gateway.close();
    await llm.close();
  });

  it('records the creating token as the owner', () => {
    expect(before).toMatchObject({ owner_id: TOKEN_IDS.admin, message_count: 2 });
  });

  it('refuses agent.execute and agent.stream on the admin session over a real WebSocket', async () => {
    const socket = await connectOpen(gateway.wsUrl, { token: gateway.tokens.rpc });
    try {
      for (const method of ['agent.execute', 'agent.stream']) {
        const answer = await socket.call(method, { message: 'hi', sessionKey: ADMIN_KEY });
        expect(answer, method).toEqual({ jsonrpc: '2.0', id: answer.id, error: FORBIDDEN });
      }
      const history = await socket.call('session.history', {});
      expect(history.result).toEqual({ messages: [] });
    } finally {
      await socket.close();
    }
  });

  it('refuses agent.execute, session.send and session.spawn on it over POST /rpc', async () => {
    expect(
      await callRpc(gateway.url, gateway.tokens.rpc, 'agent.execute', { message: 'hi', sessionKey: ADMIN_KEY }),
    ).toMatchObject({ error: FORBIDDEN });
    expect(
      await callRpc(gateway.url, gateway.tokens.rpc, 'session.send', { key: ADMIN_KEY_STRING, message: 'hi' }),
    ).toMatchObject({ error: FORBIDDEN });
    expect(
      await callRpc(gateway.url, gateway.tokens.rpc, 'session.spawn', {
        parentKey: ADMIN_KEY_STRING,
        task: 'summarise it',
      }),
    ).toMatchObject({ error: FORBIDDEN });
  });

  it("keeps the admin's messages out of the rpc token's history, status and search", async () => {
    expect((await callRpc(gateway.url, gateway.tokens.rpc, 'session.history', {})).result).toEqual({ messages: [] });
    expect((await callRpc(gateway.url, gateway.tokens.rpc, 'session.history', { channelId: 'rpc' })).result).toEqual({
      messages: [],
    });
    expect((await callRpc(gateway.url, gateway.tokens.rpc, 'session.status', {})).result).toMatchObject({
      tokensUsed: { totalTokens: 0 },
      stepsExecuted: 0,
    });
    expect((await callRpc(gateway.url, gateway.tokens.rpc, 'session.search', { query: 'launch code' })).result).toEqual(
      [],
    );
    expect(
      (await callRpc(gateway.url, gateway.tokens.admin, 'session.search', { query: 'launch code' })).result,
    ).toMatchObject([{ sessionKey: ADMIN_KEY_STRING }]);
  });

  it('refuses the REST chat routes with 403 and leaves the admin session out of /api/chat/history', async () => {
    const posted = await rest('/api/chat', { method: 'POST', body: { message: 'hi', sessionKey: ADMIN_KEY_STRING } });
    expect(posted.status).toBe(403);
    expect(await posted.json()).toEqual({ error: { code: 'forbidden', message: FORBIDDEN.message } });
    const stream = await openSse(
      `${gateway.url}/api/chat/stream?message=hi&sessionKey=${ADMIN_KEY_STRING}&token=${gateway.tokens.rpc}`,
    );
    expect(stream.status).toBe(403);
    expect(await stream.json()).toEqual({ error: { code: 'forbidden', message: FORBIDDEN.message } });
    const history = await rest('/api/chat/history?channelId=rpc');
    expect(await history.json()).toEqual({ channelId: 'rpc', messages: [] });
  });

  it("refuses to continue the admin's /v1 response with permission_error", async () => {
    const continued = await rest('/v1/responses', {
      method: 'POST',
      body: { model: 'default', input: 'and then?', previous_response_id: adminResponseId },
    });
    expect(continued.status).toBe(403);
    expect(await continued.json()).toEqual({
      error: {
        message: `Response ${adminResponseId} belongs to another client`,
        type: 'permission_error',
        param: 'previous_response_id',
        code: null,
      },
    });
  });

  it('left the admin session exactly as it was: messages, updated time, owner, metadata, usage', async () => {
    expect(readRow(ADMIN_KEY_STRING)).toEqual(before);
    expect(llm.chatRequests()).toHaveLength(llmCallsBefore);
    // Usage rows are written in batches, in order: once a later turn's row is there, any from the refusals would be too.
    await callRpc(gateway.url, gateway.tokens.admin, 'agent.execute', {
      message: 'barrier',
      sessionKey: { ...ADMIN_KEY, channelId: 'barrier' },
    });
    await vi.waitFor(() => expect(usageRows('default:admin:barrier')).toBe(1), { timeout: 5_000, interval: 20 });
    expect(usageRows(ADMIN_KEY_STRING)).toBe(1);
    const exported = await callRpc(gateway.url, gateway.tokens.admin, 'session.export', {
      session_key: ADMIN_KEY_STRING,
    });
    expect((exported.result as { messages: { content: string }[] }).messages.map((message) => message.content)).toEqual(
      ['remember the launch code', 'The launch code is 1234.'],
    );
  });

  it('lets the rpc token create a session under any key, and keeps it its own', async () => {
    const key = { tenantId: 'default', userId: 'someone-else', channelId: 'telegram' };
    const created = await callRpc(gateway.url, gateway.tokens.rpc, 'agent.execute', {
      message: 'my own words',
      sessionKey: key,
    });
    expect(created).toMatchObject({ result: { sessionKey: 'default:someone-else:telegram', finishReason: 'stop' } });
    expect(readRow('default:someone-else:telegram')?.owner_id).toBe(TOKEN_IDS.rpc);
    expect(
      await callRpc(gateway.url, gateway.tokens.rpc, 'agent.execute', { message: 'more', sessionKey: key }),
    ).toHaveProperty('result');
    const history = (await callRpc(gateway.url, gateway.tokens.rpc, 'session.history', {})).result as {
      messages: { content: string }[];
    };
    expect(history.messages.map((message) => message.content)).toEqual([
      'my own words',
      'Echo: my own words',
      'more',
      'Echo: more',
    ]);
    expect((await callRpc(gateway.url, gateway.tokens.rpc, 'session.search', { query: 'words' })).result).toMatchObject(
      [{ sessionKey: 'default:someone-else:telegram' }],
    );
  });

  it('lets the admin token reach every session', async () => {
    const answer = await callRpc(gateway.url, gateway.tokens.admin, 'session.send', {
      key: 'default:someone-else:telegram',
      message: 'admin here',
    });
    expect(answer).toMatchObject({ result: { sessionKey: 'default:someone-else:telegram', finishReason: 'stop' } });
    expect(readRow('default:someone-else:telegram')?.owner_id).toBe(TOKEN_IDS.rpc);
  });
});
