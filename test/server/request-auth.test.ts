// Bearer authentication: 401 with WWW-Authenticate, 403 for a refused scope, ?token= only where a route allows it.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/obs/logger.js';
import { createAuthenticator, createHttpServer, createRequestAuth, grantsRest } from '../../src/server/index.js';
import { createSqliteTokenPort, openDatabase, type SqliteDatabase } from '../../src/store/sqlite/index.js';
import { harnessConfig, startGateway, type Harness } from '../support/gateway-harness.js';

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'system.ping' });

describe('request authentication on /rpc', () => {
  let gateway: Harness;
  beforeAll(async () => {
    gateway = await startGateway({ listen: false });
  });
  afterAll(async () => {
    await gateway.close();
  });

  const post = (url: string, headers: Record<string, string> = {}) =>
    gateway.app.http.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', ...headers },
      payload: PING,
    });

  it('answers 401 with WWW-Authenticate: Bearer and the unauthorized envelope without a token', async () => {
    const response = await post('/rpc');
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.json()).toEqual({ error: { code: 'unauthorized', message: 'Missing or invalid bearer token' } });
  });

  it('answers 401 for a wrong secret or another scheme', async () => {
    for (const authorization of [
      `Bearer ${'x'.repeat(40)}`,
      `Basic ${gateway.tokens.admin}`,
      gateway.tokens.admin,
      `Bearer ${gateway.tokens.admin} extra`,
    ]) {
      const response = await post('/rpc', { authorization });
      expect(response.statusCode, authorization).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('does not accept the token as a ?token= query parameter', async () => {
    const response = await post(`/rpc?token=${gateway.tokens.admin}`);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('uses the header, not a valid query token, when the header is wrong', async () => {
    const response = await post(`/rpc?token=${gateway.tokens.admin}`, { authorization: 'Bearer wrong-secret' });
    expect(response.statusCode).toBe(401);
  });

  it('accepts a valid bearer header', async () => {
    const response = await post('/rpc', { authorization: `Bearer ${gateway.tokens.rpc}` });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: 1, result: { pong: true } });
  });

  it('lets every valid token in; the method then checks its scope (-32603)', async () => {
    for (const token of [gateway.tokens.ws, gateway.tokens.mcpClient, gateway.tokens.api, gateway.tokens.adminOnly]) {
      const response = await post('/rpc', { authorization: `Bearer ${token}` });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32603, message: "Insufficient scope: requires 'rpc'", data: { kind: 'forbidden' } },
      });
    }
  });
});

describe('request authentication on routes that allow the query token', () => {
  const ADMIN = 'admin-secret-0123456789abcdefghijklmnop';
  const MCP = 'mcp-client-secret-0123456789abcdefghijk';
  let http: FastifyInstance;
  let db: SqliteDatabase;
  beforeAll(async () => {
    const gateway = harnessConfig({
      gateway: {
        tokens: [
          { id: 'admin', secret: ADMIN, scopes: ['*'] },
          { id: 'mcp', secret: MCP, scopes: ['mcp-client'] },
        ],
      },
    }).gateway;
    db = openDatabase({ path: ':memory:' });
    const auth = createRequestAuth(
      createAuthenticator({ configTokens: gateway.tokens, store: createSqliteTokenPort(db) }),
    );
    http = await createHttpServer({ gateway, log: createLogger({ level: 'silent' }), auth });
    http.get(
      '/stream',
      { preHandler: auth.require({ allowQueryToken: true, grants: grantsRest }) },
      async (request) => ({
        clientId: auth.callerOf(request).clientId,
      }),
    );
    http.get('/strict', { preHandler: auth.require({ grants: grantsRest }) }, async (request) => ({
      clientId: auth.callerOf(request).clientId,
    }));
  });
  afterAll(async () => {
    await http.close();
    db.close();
  });

  it('accepts ?token= where the route allows it', async () => {
    const response = await http.inject({ method: 'GET', url: `/stream?token=${ADMIN}` });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ clientId: 'admin' });
  });

  it('refuses ?token= on a route that does not allow it, even after the rate limiter used it', async () => {
    const response = await http.inject({ method: 'GET', url: `/strict?token=${ADMIN}` });
    expect(response.statusCode).toBe(401);
    expect(
      (await http.inject({ method: 'GET', url: '/strict', headers: { authorization: `Bearer ${ADMIN}` } })).json(),
    ).toEqual({ clientId: 'admin' });
  });

  it('answers 403 with the forbidden envelope when the route refuses the token scope', async () => {
    for (const request of [
      { method: 'GET' as const, url: `/stream?token=${MCP}` },
      { method: 'GET' as const, url: '/strict', headers: { authorization: `Bearer ${MCP}` } },
    ]) {
      const response = await http.inject(request);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({
        error: { code: 'forbidden', message: "Token 'mcp' lacks the scope this route requires" },
      });
    }
  });

  it('answers 401 for a wrong query token', async () => {
    expect((await http.inject({ method: 'GET', url: '/stream?token=wrong' })).statusCode).toBe(401);
    expect((await http.inject({ method: 'GET', url: '/stream' })).statusCode).toBe(401);
  });
});
