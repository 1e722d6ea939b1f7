// POST, GET and DELETE /mcp (Streamable HTTP): bearer auth and scope, then the request goes to its session's SDK
// transport; refusals before that answer in the REST envelope, the transport's own in JSON-RPC's.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { RouteRegistrar } from '../../capability.js';
import { mcpBatchRefused, mcpSessionRequired } from '../../errors.js';
import { grantsMcp, type RequestAuth } from '../../server/index.js';
import { loadMcpSdk, mcpSdk } from '../mcp-sdk-loader.js';
import { endReply } from './mcp-replies.js';
import type { McpSession, McpSessions } from './mcp-sessions.js';

export interface McpRouteDeps {
  auth: RequestAuth;
  sessions: McpSessions;
  log: Logger;
}

const MCP_PATH = '/mcp';

function sessionIdOf(request: FastifyRequest): string | undefined {
  const value = request.headers['mcp-session-id'];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export function mcpRoutes({ auth, sessions, log }: McpRouteDeps): RouteRegistrar {
  const onRequest = auth.require({ grants: grantsMcp });

  /** The SDK writes the answer itself: Fastify lets go of the reply, keeping the headers its hooks set (trace id, rate limit). */
  async function handOver(request: FastifyRequest, reply: FastifyReply, session: McpSession, body?: unknown) {
    reply.hijack();
    const { raw } = reply;
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) raw.setHeader(name, value);
    const { calls, replies } = session.open;
    // A client that hangs up before its answer cancels the call, as on /rpc (the SDK only cancels on notifications/cancelled).
    const id = mcpSdk().isJSONRPCRequest(body) ? body.id : undefined;
    const hangUp = new AbortController();
    const closed = new Promise<void>((resolve) =>
      raw.once('close', () => {
        if (!raw.writableFinished) hangUp.abort();
        resolve();
      }),
    );
    // Only a request's reply can be left unanswered by the SDK; GET streams and DELETE it always ends itself.
    if (id !== undefined) {
      replies.add(raw);
      calls.set(id, { hangUp: hangUp.signal, drop: () => endReply(raw, 204) });
    }
    try {
      // The SDK's promise never settles for a request it leaves unanswered; the reply closing ends the wait.
      await Promise.race([session.transport.handleRequest(request.raw, raw, body), closed]);
    } catch (error) {
      log.error({ err: error, traceId: request.id }, 'MCP request failed');
      endReply(raw, 500, { code: 'internal', message: 'Internal error' });
    } finally {
      replies.delete(raw);
      if (id !== undefined && calls.get(id)?.hangUp === hangUp.signal) calls.delete(id);
    }
  }

  /** The session named by the request's Mcp-Session-Id, opened by the same token. */
  async function existing(request: FastifyRequest): Promise<McpSession> {
    const id = sessionIdOf(request);
    if (id === undefined) throw mcpSessionRequired();
    return sessions.use(id, auth.callerOf(request));
  }

  return function registerMcpRoutes(scope) {
    scope.post(MCP_PATH, { onRequest }, async function mcpPost(request, reply) {
      const { isInitializeRequest } = await loadMcpSdk();
      const { body } = request;
      if (Array.isArray(body)) throw mcpBatchRefused();
      if (sessionIdOf(request) !== undefined) return handOver(request, reply, await existing(request), body);
      if (!isInitializeRequest(body)) throw mcpSessionRequired();
      const session = await sessions.open(auth.callerOf(request));
      try {
        await handOver(request, reply, session, body);
      } finally {
        await sessions.settle(session);
      }
    });
    // The server-to-client stream (list_changed) and the end of a session.
    scope.get(MCP_PATH, { onRequest }, async function mcpStream(request, reply) {
      await loadMcpSdk();
      return handOver(request, reply, await existing(request));
    });
    scope.delete(MCP_PATH, { onRequest }, async function mcpEnd(request, reply) {
      await loadMcpSdk();
      return handOver(request, reply, await existing(request));
    });
  };
}
