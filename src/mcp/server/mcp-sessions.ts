// The live MCP sessions of /mcp: one SDK server and transport each, tied to the token that opened it, bounded per token
// and in all, ended when idle.
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from 'pino';
import { mcpSessionNotFound, mcpSessionsFull } from '../../errors.js';
import type { Caller } from '../../server/types.js';
import { mcpSdk } from '../mcp-sdk-loader.js';
import { endAllReplies, openReplies, type OpenReplies } from './mcp-replies.js';

export interface McpSessionLimits {
  maxSessions: number;
  maxSessionsPerToken: number;
  sessionIdleMs: number;
}

export interface McpSession {
  readonly transport: StreamableHTTPServerTransport;
  /** The token behind the latest request of the session: tool calls act for it (its scopes as they are now). */
  caller: Caller;
  /** The HTTP requests the transport holds open, ended by the gateway when the SDK would leave them hanging. */
  readonly open: OpenReplies;
}

export interface McpSessionsDeps {
  /** mcp.server, read per new session and per sweep. */
  limits: () => McpSessionLimits;
  /** A server for one session; its handlers read the session's caller. */
  newServer: (session: McpSession) => Server;
  now: () => number;
  log: Logger;
}

export interface McpSessions {
  /** A session for an initialize request of `caller`; it is kept once the transport has given it an id. */
  open(caller: Caller): Promise<McpSession>;
  /** Called after the initialize request was handled: a session that did not initialize is released. */
  settle(session: McpSession): Promise<void>;
  /** The session of `id` if `caller`'s token opened it and it is not idle; else not_found, the same for every other token. */
  use(id: string, caller: Caller): Promise<McpSession>;
  /** Tells every live session's client that tools/list changed. */
  notifyToolsChanged(): void;
  /** Ends every session of a token whose secret stopped working (revoked, rotated): open streams close at once. */
  endToken(clientId: string): Promise<void>;
  /** Ends the sessions idle for longer than sessionIdleMs. */
  sweep(): Promise<void>;
  closeAll(): Promise<void>;
}

interface Entry extends McpSession {
  id: string;
  clientId: string;
  server: Server;
  lastUsedAt: number;
}

export function createMcpSessions({ limits, newServer, now, log }: McpSessionsDeps): McpSessions {
  const byId = new Map<string, Entry>();
  const byToken = new Map<string, Set<Entry>>();
  /** Sessions between open() and settle(): counted against maxSessions so a burst of initializes cannot pass it. */
  let opening = 0;
  const initialized = new WeakSet<McpSession>();

  function forget(entry: Entry): void {
    if (byId.get(entry.id) === entry) byId.delete(entry.id);
    const mine = byToken.get(entry.clientId);
    mine?.delete(entry);
    if (mine?.size === 0) byToken.delete(entry.clientId);
  }

  async function end(entry: Entry): Promise<void> {
    forget(entry);
    // Closing the server closes its transport: open streams end and the session's calls in flight are aborted.
    await entry.server.close().catch((error: unknown) => log.warn({ err: error }, 'MCP session did not close cleanly'));
  }

  /** Makes room for one more session of `clientId`: its least recently used one (first in its set) ends. */
  async function evictOldestOf(clientId: string, maxPerToken: number): Promise<void> {
    const mine = byToken.get(clientId);
    while (mine !== undefined && mine.size >= maxPerToken) {
      const [oldest] = mine;
      if (oldest === undefined) return;
      log.info({ clientId }, 'MCP session ended: the token opened more than mcp.server.maxSessionsPerToken');
      await end(oldest);
    }
  }

  async function sweep(): Promise<void> {
    const idleBefore = now() - limits().sessionIdleMs;
    const idle = [...byId.values()].filter((entry) => entry.lastUsedAt < idleBefore);
    for (const entry of idle) await end(entry);
    if (idle.length > 0) log.info({ ended: idle.length }, 'idle MCP sessions ended');
  }

  return {
    async open(caller) {
      const { maxSessions, maxSessionsPerToken, sessionIdleMs } = limits();
      await evictOldestOf(caller.clientId, maxSessionsPerToken);
      if (byId.size + opening >= maxSessions) await sweep();
      if (byId.size + opening >= maxSessions) throw mcpSessionsFull(maxSessions, Math.min(sessionIdleMs, 60_000));
      const transport: StreamableHTTPServerTransport = new (mcpSdk().StreamableHTTPServerTransport)({
        sessionIdGenerator: randomUUID,
        // One JSON answer per request: no SSE stream to open and close per tool call; notifications use the GET stream.
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          entry.id = id;
          initialized.add(entry);
          byId.set(id, entry);
          const mine = byToken.get(entry.clientId) ?? new Set<Entry>();
          mine.add(entry);
          byToken.set(entry.clientId, mine);
        },
      });
      const session: McpSession = { transport, caller, open: openReplies() };
      const entry: Entry = Object.assign(session, {
        id: '',
        clientId: caller.clientId,
        server: newServer(session),
        lastUsedAt: now(),
      });
      transport.onclose = () => {
        forget(entry);
        endAllReplies(session.open);
      };
      transport.onerror = (error) => log.debug({ err: error }, 'MCP request refused by the transport');
      opening += 1;
      try {
        await entry.server.connect(transport);
      } catch (error) {
        opening -= 1;
        throw error;
      }
      return entry;
    },
    async settle(session) {
      opening -= 1;
      if (!initialized.has(session)) await session.transport.close();
    },
    async use(id, caller) {
      const entry = byId.get(id);
      if (entry === undefined || entry.clientId !== caller.clientId) throw mcpSessionNotFound();
      const at = now();
      // Expired between two sweeps: ended here, so an idle session never outlives sessionIdleMs for its client.
      if (at - entry.lastUsedAt > limits().sessionIdleMs) {
        await end(entry);
        throw mcpSessionNotFound();
      }
      entry.lastUsedAt = at;
      // A token's set is kept in order of use, least recent first.
      const mine = byToken.get(entry.clientId);
      mine?.delete(entry);
      mine?.add(entry);
      entry.caller = caller;
      return entry;
    },
    notifyToolsChanged() {
      for (const entry of byId.values())
        entry.server
          .sendToolListChanged()
          .catch((error: unknown) => log.debug({ err: error }, 'list_changed not delivered'));
    },
    async endToken(clientId) {
      await Promise.all([...(byToken.get(clientId) ?? [])].map(end));
    },
    sweep,
    async closeAll() {
      await Promise.all([...byId.values()].map(end));
    },
  };
}
