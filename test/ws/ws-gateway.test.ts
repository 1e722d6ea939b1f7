// GET /ws: upgrade and token check, JSON-RPC frames, size/binary/batch errors, notifications and shutdown.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { startGateway, TOKEN_IDS, type Harness } from '../support/gateway-harness.js';
import { postRpc } from '../support/http-client.js';
import { frameByteCap } from '../../src/ws/index.js';
import { connect, connectOpen, type TestSocket } from '../support/ws-client.js';

const MAX_CHARS = 1_000;
/** vi.waitFor waits for an event here, never measures speed: a generous ceiling keeps slow machines green. */
const WAIT = { timeout: 5_000, interval: 20 };

describe('websocket gateway', () => {
  let gateway: Harness;
  const sockets: TestSocket[] = [];
  const tokenOf = new Map<TestSocket, string>();
  const open = async (token?: string, url?: string) => {
    const socket = await connectOpen(url ?? gateway.wsUrl, token === undefined ? {} : { token });
    sockets.push(socket);
    if (token !== undefined) tokenOf.set(socket, token);
    return socket;
  };

  beforeAll(async () => {
    gateway = await startGateway({ gateway: { wsMaxMessageBytes: MAX_CHARS, maxBatchSize: 3, wsHeartbeatMs: 0 } });
  });
  afterAll(async () => {
    await Promise.all(sockets.map((socket) => socket.close()));
    await gateway.close();
  });

  describe('upgrade and authentication', () => {
    it('accepts a bearer header and answers system.ping with { pong: true, ts }', async () => {
      const socket = await open(gateway.tokens.rpc);
      const response = await socket.call('system.ping');
      expect(response).toEqual({ jsonrpc: '2.0', id: response.id, result: { pong: true, ts: expect.any(Number) } });
    });

    it('accepts the token as a ?token= query parameter', async () => {
      const socket = await open(undefined, `${gateway.wsUrl}?token=${encodeURIComponent(gateway.tokens.rpc)}`);
      expect(await socket.call('system.ping')).toHaveProperty('result.pong', true);
    });

    it('accepts the upgrade without a token, then closes with 4001', async () => {
      const socket = connect(gateway.wsUrl);
      await expect(socket.opened).resolves.toBeUndefined();
      expect(await socket.closed).toEqual({ code: 4001, reason: 'Unauthorized' });
    });

    it('accepts the upgrade with a wrong token, then closes with 4001', async () => {
      const byHeader = connect(gateway.wsUrl, { token: 'x'.repeat(40) });
      const byQuery = connect(`${gateway.wsUrl}?token=wrong`);
      await Promise.all([byHeader.opened, byQuery.opened]);
      expect((await byHeader.closed).code).toBe(4001);
      expect((await byQuery.closed).code).toBe(4001);
    });

    it('refuses an upgrade on any path other than /ws', async () => {
      for (const path of ['/other', '/ws/extra', '/rpc', '/']) {
        const socket = connect(`${gateway.url.replace(/^http/, 'ws')}${path}`, { token: gateway.tokens.rpc });
        await expect(socket.opened, path).rejects.toThrow('upgrade refused: HTTP 404');
      }
    });

    it('lets a ws-scoped token call rpc methods over the WebSocket, but not admin methods', async () => {
      const socket = await open(gateway.tokens.ws);
      expect(await socket.call('system.ping')).toHaveProperty('result.pong', true);
      expect((await socket.call('tokens.list')).error).toEqual({
        code: -32603,
        message: "Insufficient scope: requires 'admin'",
        data: { kind: 'forbidden' },
      });
    });

    it('authenticates the same ws token over POST /rpc, where its rpc methods answer -32603 (ws grants the socket only)', async () => {
      const { status, body } = await postRpc(
        gateway.url,
        { jsonrpc: '2.0', id: 1, method: 'system.ping' },
        gateway.tokens.ws,
      );
      expect(status).toBe(200);
      expect(body).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32603, message: "Insufficient scope: requires 'rpc'", data: { kind: 'forbidden' } },
      });
    });

    it('refuses rpc methods on the socket to tokens without rpc or ws scope', async () => {
      for (const token of [gateway.tokens.mcpClient, gateway.tokens.api, gateway.tokens.adminOnly]) {
        const socket = await open(token);
        expect((await socket.call('system.ping')).error).toEqual({
          code: -32603,
          message: "Insufficient scope: requires 'rpc'",
          data: { kind: 'forbidden' },
        });
      }
      const admin = await open(gateway.tokens.adminOnly);
      expect(await admin.call('tokens.list')).toHaveProperty('result.tokens');
    });
  });

  describe('frames', () => {
    it('answers a binary frame with -32700 and id null, and the connection stays usable', async () => {
      const socket = await open(gateway.tokens.rpc);
      socket.socket.send(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'system.ping' })), {
        binary: true,
      });
      expect(await socket.next()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error' },
      });
      expect(await socket.call('system.ping')).toHaveProperty('result.pong', true);
    });

    it('answers invalid JSON with -32700', async () => {
      const socket = await open(gateway.tokens.rpc);
      socket.send('{"jsonrpc":');
      expect(await socket.next()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error' },
      });
    });

    it('answers a text message over wsMaxMessageBytes with -32600 naming both sizes, id null, and stays usable', async () => {
      const socket = await open(gateway.tokens.rpc);
      const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'system.ping', params: { pad: '' } });
      const oversize = text.replace('"pad":""', `"pad":"${'x'.repeat(MAX_CHARS + 1 - text.length)}"`);
      expect(oversize.length).toBe(MAX_CHARS + 1);
      socket.send(oversize);
      expect(await socket.next()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: `Message size ${MAX_CHARS + 1} bytes exceeds maximum of ${MAX_CHARS}` },
      });
      expect(await socket.call('system.ping')).toHaveProperty('result.pong', true);
    });

    it('measures the size in characters: a message of exactly the limit is dispatched', async () => {
      const socket = await open(gateway.tokens.rpc);
      const text = JSON.stringify({ jsonrpc: '2.0', id: 'edge', method: 'system.ping', params: { pad: '' } });
      // Multi-byte characters: the frame has more bytes than the limit, but not more characters.
      const exact = text.replace('"pad":""', `"pad":"${'é'.repeat(MAX_CHARS - text.length)}"`);
      expect(exact.length).toBe(MAX_CHARS);
      expect(Buffer.byteLength(exact)).toBeGreaterThan(MAX_CHARS);
      socket.send(exact);
      // The size check passed: the method itself refuses the unknown param.
      expect(await socket.next()).toMatchObject({
        id: 'edge',
        error: { code: -32602, data: { kind: 'invalid_params', param: 'pad' } },
      });
    });

    it('answers -32600 for any frame up to the frame cap, four bytes per allowed character and more', async () => {
      const socket = await open(gateway.tokens.rpc);
      const atCap = 'x'.repeat(frameByteCap(MAX_CHARS));
      expect(atCap.length).toBeGreaterThan(MAX_CHARS * 4);
      socket.send(atCap);
      expect(await socket.next()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: `Message size ${atCap.length} bytes exceeds maximum of ${MAX_CHARS}` },
      });
      expect(await socket.call('system.ping')).toHaveProperty('result.pong', true);
    });

    it('closes with 1009 and a reason naming the cap a frame beyond it', async () => {
      const socket = await open(gateway.tokens.rpc);
      socket.send('x'.repeat(frameByteCap(MAX_CHARS) + 1));
      expect(await socket.closed).toEqual({
        code: 1009,
        reason: `Message too big: frames are limited to ${frameByteCap(MAX_CHARS)} bytes`,
      });
    });

    it('answers a batch with an array and a batch over maxBatchSize with -32600', async () => {
      const socket = await open(gateway.tokens.rpc);
      socket.send([
        { jsonrpc: '2.0', id: 'b1', method: 'system.ping' },
        { jsonrpc: '2.0', id: 'b2', method: 'no.such' },
      ]);
      const batch = await socket.next();
      expect(Array.isArray(batch)).toBe(true);
      expect(batch).toEqual([
        { jsonrpc: '2.0', id: 'b1', result: expect.objectContaining({ pong: true }) },
        { jsonrpc: '2.0', id: 'b2', error: { code: -32601, message: 'Method not found: no.such' } },
      ]);
      socket.send([1, 2, 3, 4].map((id) => ({ jsonrpc: '2.0', id, method: 'system.ping' })));
      expect(await socket.next()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Batch of 4 requests exceeds maximum of 3' },
      });
    });

    it('sends nothing back for a notification', async () => {
      const socket = await open(gateway.tokens.rpc);
      socket.send({ jsonrpc: '2.0', method: 'system.ping' });
      socket.send([{ jsonrpc: '2.0', method: 'system.ping' }]);
      const response = await socket.call('system.ping');
      expect(socket.received).toEqual([response]);
    });

    it('survives a barrage of malformed frames and keeps serving every connection', async () => {
      const attacker = await open(gateway.tokens.rpc);
      const garbage: (string | Buffer)[] = [
        '',
        'null',
        '[]',
        '[[]]',
        '{}',
        '"str"',
        '123',
        '{"jsonrpc":"2.0","id":{"a":1},"method":"system.ping"}',
        '{"jsonrpc":"2.0","id":1,"method":"system.ping","params":"x"}',
        '{"jsonrpc":"2.0","id":1,"method":"system.ping","params":[1]}',
        '{"jsonrpc":"2.0","id":1,"method":"__proto__.x"}',
        '{"jsonrpc":"2.0","id":1,"method":"constructor"}',
        '{"jsonrpc":"2.0","id":1,"method":"system.ping","params":{"__proto__":{"polluted":true}}}',
        '[1,"a",null,{}]',
        '\u0000\uffff',
        '{"a":'.repeat(200),
        '['.repeat(300) + ']'.repeat(300),
        Buffer.from([0xff, 0xfe, 0x00]),
      ];
      for (const frame of garbage) {
        if (typeof frame === 'string') attacker.send(frame);
        else attacker.socket.send(frame, { binary: true });
      }
      const last = await attacker.call('system.ping');
      expect(last).toHaveProperty('result.pong', true);
      // Every frame got exactly one answer before the ping's (the '[]' batch and friends included).
      expect(attacker.received.length).toBe(garbage.length + 1);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      const other = await open(gateway.tokens.rpc);
      expect(await other.call('system.ping')).toHaveProperty('result.pong', true);
    });
  });

  describe('notifications', () => {
    it('app.ws.notify(clientId) reaches every socket of that client and no other', async () => {
      const own = [await open(gateway.tokens.admin), await open(gateway.tokens.admin)];
      const other = await open(gateway.tokens.rpc);
      const sent = gateway.app.ws.notify(TOKEN_IDS.admin, 'session.completed', { sessionKey: 'k', result: 'done' });
      expect(sent).toBeGreaterThanOrEqual(2);
      for (const socket of own) {
        expect(await socket.next()).toEqual({
          jsonrpc: '2.0',
          method: 'session.completed',
          params: { sessionKey: 'k', result: 'done' },
        });
      }
      // The ping's answer is sent after the notification would have been, so an empty inbox before it is proof.
      const response = await other.call('system.ping');
      expect(other.received).toEqual([response]);
    });

    it('notify(null) reaches every open socket whose token may call agent.*, and no other', async () => {
      const a = await open(gateway.tokens.rpc);
      const b = await open(gateway.tokens.ws);
      const mcp = await open(gateway.tokens.mcpClient);
      const api = await open(gateway.tokens.api);
      const adminOnly = await open(gateway.tokens.adminOnly);
      const count = gateway.app.ws.notify(null, 'demo.event', { n: 1 });
      // Every socket this suite still has open, less those whose token has neither rpc, ws nor *.
      const excluded = [gateway.tokens.mcpClient, gateway.tokens.api, gateway.tokens.adminOnly];
      const stillOpen = sockets.filter((socket) => socket.socket.readyState === WebSocket.OPEN);
      expect(stillOpen).toHaveLength(gateway.app.ws.connectionCount());
      expect(count).toBe(stillOpen.filter((socket) => !excluded.includes(tokenOf.get(socket) ?? '')).length);
      expect(count).toBeLessThan(stillOpen.length - 2);
      for (const socket of [mcp, api, adminOnly]) {
        const answer = await socket.call('system.ping');
        expect(socket.received).toEqual([answer]);
      }
      expect(await a.waitFor((frame) => frame.method === 'demo.event')).toEqual({
        jsonrpc: '2.0',
        method: 'demo.event',
        params: { n: 1 },
      });
      expect(await b.waitFor((frame) => frame.method === 'demo.event')).toBeDefined();
    });

    it('notify(a client with no open socket) reaches nobody, so results never go to other clients', async () => {
      const other = await open(gateway.tokens.rpc);
      expect(gateway.app.ws.notify('nobody-connected', 'session.completed', { result: 'private' })).toBe(0);
      const response = await other.call('system.ping');
      expect(other.received).toEqual([response]);
    });

    it('forgets a connection once its client closes it', async () => {
      const socket = await open(gateway.tokens.rpc);
      const before = gateway.app.ws.connectionCount();
      await socket.close();
      await vi.waitFor(() => expect(gateway.app.ws.connectionCount()).toBe(before - 1), WAIT);
    });
  });
});

describe('websocket message size at the default wsMaxMessageBytes', () => {
  let gateway: Harness;
  beforeAll(async () => {
    gateway = await startGateway({ gateway: { wsHeartbeatMs: 0 } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("answers a 3.5 MB text frame with the spec's -32600, not a 1009 close", async () => {
    const socket = await connectOpen(gateway.wsUrl, { token: gateway.tokens.rpc });
    const size = 3_500_000;
    socket.send('x'.repeat(size));
    expect(await socket.next(15_000)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: `Message size ${size} bytes exceeds maximum of ${gateway.config.gateway.wsMaxMessageBytes}`,
      },
    });
    expect(await socket.call('system.ping')).toHaveProperty('result.pong', true);
    await socket.close();
  });
});

describe('websocket message rate limit', () => {
  let gateway: Harness;
  beforeAll(async () => {
    gateway = await startGateway({
      gateway: { wsMessageRateLimit: { maxMessages: 5, windowMs: 60_000 }, wsHeartbeatMs: 0 },
    });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('answers the 6th message in the window with -32000 and id null, discards it, and leaves other connections alone', async () => {
    const limited = await connectOpen(gateway.wsUrl, { token: gateway.tokens.rpc });
    const neighbour = await connectOpen(gateway.wsUrl, { token: gateway.tokens.rpc });
    try {
      for (let id = 1; id <= 6; id += 1) limited.send({ jsonrpc: '2.0', id, method: 'system.ping' });
      await limited.waitFor((frame) => frame.id === null);
      await vi.waitFor(() => expect(limited.received.length).toBe(6), WAIT);
      const rateError = { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Message rate limit exceeded' } };
      expect(limited.received.filter((frame) => frame.id === null)).toEqual([rateError]);
      expect(
        limited.received
          .map((frame) => frame.id)
          .filter((id) => id !== null)
          .sort(),
      ).toEqual([1, 2, 3, 4, 5]);
      // A 7th message is refused too; by then the 6th would have been answered had it been dispatched.
      limited.send({ jsonrpc: '2.0', id: 7, method: 'system.ping' });
      await vi.waitFor(() => expect(limited.received.length).toBe(7), WAIT);
      expect(limited.received[6]).toEqual(rateError);
      expect(limited.received.some((frame) => frame.id === 6 || frame.id === 7)).toBe(false);
      expect(await neighbour.call('system.ping')).toHaveProperty('result.pong', true);
    } finally {
      await Promise.all([limited.close(), neighbour.close()]);
    }
  });

  it('counts a binary frame against the limit as well', async () => {
    const socket = await connectOpen(gateway.wsUrl, { token: gateway.tokens.rpc });
    try {
      for (let i = 0; i < 5; i += 1) socket.socket.send(Buffer.from('x'), { binary: true });
      socket.send({ jsonrpc: '2.0', id: 1, method: 'system.ping' });
      await vi.waitFor(() => expect(socket.received.length).toBe(6), WAIT);
      expect(socket.received[5]).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: 'Message rate limit exceeded' },
      });
    } finally {
      await socket.close();
    }
  });
});

describe('websocket heartbeat', () => {
  it('pushes { jsonrpc, method: heartbeat, params: { ts } } every wsHeartbeatMs', async () => {
    const gateway = await startGateway({ gateway: { wsHeartbeatMs: 100 } });
    const socket = await connectOpen(gateway.wsUrl, { token: gateway.tokens.rpc });
    try {
      const heartbeat = await socket.waitFor((frame) => frame.method === 'heartbeat');
      expect(heartbeat).toEqual({ jsonrpc: '2.0', method: 'heartbeat', params: { ts: expect.any(Number) } });
      // The ws client answers pings, so the connection survives several beats.
      await vi.waitFor(
        () => expect(socket.received.filter((frame) => frame.method === 'heartbeat').length).toBeGreaterThanOrEqual(3),
        WAIT,
      );
      expect(socket.socket.readyState).toBe(WebSocket.OPEN);
    } finally {
      await socket.close();
      await gateway.close();
    }
  });

  it('terminates a connection that does not answer the heartbeat ping', async () => {
    const gateway = await startGateway({ gateway: { wsHeartbeatMs: 100 } });
    const silent = await connectOpen(gateway.wsUrl, { token: gateway.tokens.rpc, autoPong: false });
    try {
      expect((await silent.closed).code).toBe(1006);
    } finally {
      await gateway.close();
    }
  });

  it('sends no heartbeat when wsHeartbeatMs is 0', async () => {
    const gateway = await startGateway({ gateway: { wsHeartbeatMs: 0 } });
    const socket = await connectOpen(gateway.wsUrl, { token: gateway.tokens.rpc });
    let pings = 0;
    socket.socket.on('ping', () => {
      pings += 1;
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const response = await socket.call('system.ping');
      expect(socket.received).toEqual([response]);
      expect(pings).toBe(0);
    } finally {
      await socket.close();
      await gateway.close();
    }
  });
});

describe('websocket shutdown', () => {
  it('app.close() closes every socket with 1001 "Server shutting down" and refuses new upgrades', async () => {
    const gateway = await startGateway({ gateway: { wsHeartbeatMs: 0 } });
    try {
      const sockets = await Promise.all(
        [gateway.tokens.rpc, gateway.tokens.admin, gateway.tokens.ws].map((token) =>
          connectOpen(gateway.wsUrl, { token }),
        ),
      );
      await gateway.app.close();
      for (const socket of sockets) expect(await socket.closed).toEqual({ code: 1001, reason: 'Server shutting down' });
      expect(gateway.app.state()).toBe('closed');
      expect(gateway.app.ws.connectionCount()).toBe(0);
      const late = connect(gateway.wsUrl, { token: gateway.tokens.rpc });
      await expect(late.opened).rejects.toThrow();
    } finally {
      await gateway.close();
    }
  });
});
