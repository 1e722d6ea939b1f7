// A fake Slack for tests: the Web API methods the Slack adapter calls, private file downloads, Socket Mode over a
// WebSocket, and helpers that sign and post Events API payloads to a gateway route, all on one free local port.
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export const FAKE_BOT_TOKEN = 'xoxb-fake-bot-token';
export const FAKE_APP_TOKEN = 'xapp-fake-app-token';
export const FAKE_SIGNING_SECRET = 'fake-signing-secret';
export const FAKE_BOT_USER_ID = 'UBOT';
export const FAKE_BOT_ID = 'BBOT';

/** One Web API call as the fake received it. */
export interface RecordedCall {
  method: string;
  /** The bearer token of the call (Authorization header). */
  token: string | undefined;
  params: Record<string, unknown>;
  /** The fake's answer when it answered normally (not a scripted failure): a posted message's `ts` is in it. */
  answer?: unknown;
}

/** What the next call of a method is answered with instead of its normal answer. */
export type ScriptedAnswer =
  { status: 429; retryAfterSeconds?: number } | { status: 500 | 502 | 503 } | { error: string };

interface PendingAck {
  resolve(payload: unknown): void;
}

export interface FakeSlack {
  /** The Web API root to configure as `apiBaseUrl` (ends with `/api/`). */
  apiBaseUrl: string;
  origin: string;
  calls: RecordedCall[];
  /** Resolves with the `n`-th call (1-based, counting from the start) of `method`, already made or future. */
  waitForCall(method: string, n?: number): Promise<RecordedCall>;
  /** The next call of `method` gets `answer` (queued: several scripted answers are used in order). */
  script(method: string, answer: ScriptedAnswer): void;
  /** A private file served at its url_private to the bot token only; returns the file object Slack puts on events. */
  addFile(content: Buffer, name: string, mimetype: string): SlackFileObject;
  /** Each private file download asked for: the file id and the bearer token presented. */
  fileDownloads: { id: string; token: string | undefined }[];
  /** Socket Mode: the connections opened so far (each `apps.connections.open` URL used). */
  socketConnections(): number;
  /** Resolves once `n` Socket Mode connections were opened in total and the latest got its hello. */
  waitForSocket(n?: number): Promise<void>;
  /** Resolves once no Socket Mode connection is open (the client closed them all). */
  waitForSocketsClosed(): Promise<void>;
  /** Sends an envelope over the open Socket Mode connection; resolves with the adapter's ack payload. */
  pushEnvelope(type: 'events_api' | 'interactive', payload: unknown): Promise<unknown>;
  /** Asks the connected client to reconnect, as Slack does when it recycles a connection. */
  requestReconnect(): void;
  close(): Promise<void>;
}

export interface SlackFileObject {
  id: string;
  name: string;
  mimetype: string;
  size: number;
  url_private: string;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

function parseParams(request: IncomingMessage, body: string): Record<string, unknown> {
  if ((request.headers['content-type'] ?? '').includes('application/json')) {
    const parsed: unknown = body === '' ? {} : JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? { ...parsed } : {};
  }
  const params: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    // The Web API client sends objects and arrays (blocks) as JSON strings in form bodies.
    params[key] = /^[[{]/.test(value) ? JSON.parse(value) : value;
  }
  return params;
}

function bearer(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  return header?.startsWith('Bearer ') === true ? header.slice('Bearer '.length) : undefined;
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(body));
}

export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: RecordedCall[] = [];
  const scripted = new Map<string, ScriptedAnswer[]>();
  const files = new Map<string, { content: Buffer; file: SlackFileObject }>();
  const fileDownloads: FakeSlack['fileDownloads'] = [];
  const callWaiters: (() => void)[] = [];
  const socketWaiters: (() => void)[] = [];
  const acks = new Map<string, PendingAck>();
  const sockets = new Set<WebSocket>();
  let latest: WebSocket | undefined;
  let opened = 0;
  let helloed = 0;
  let ts = 1_700_000_000;

  function answer(method: string, params: Record<string, unknown>, token: string | undefined): unknown {
    const appMethod = method === 'apps.connections.open';
    if (token !== (appMethod ? FAKE_APP_TOKEN : FAKE_BOT_TOKEN)) return { ok: false, error: 'invalid_auth' };
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: `${origin}/`,
          team: 'Fake Team',
          user: 'gateway',
          team_id: 'T1',
          user_id: FAKE_BOT_USER_ID,
          bot_id: FAKE_BOT_ID,
        };
      case 'chat.postMessage':
        ts += 1;
        return { ok: true, channel: params.channel, ts: `${ts}.000100`, message: { text: params.text } };
      case 'chat.update':
        return { ok: true, channel: params.channel, ts: params.ts, text: params.text };
      case 'apps.connections.open':
        return { ok: true, url: `${origin.replace('http', 'ws')}/link/?ticket=${randomUUID()}` };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://fake');
      const body = await readBody(request);
      if (request.method === 'GET' && url.pathname.startsWith('/files/')) {
        const id = url.pathname.split('/')[2] ?? '';
        const stored = files.get(id);
        const token = bearer(request);
        fileDownloads.push({ id, token });
        if (stored === undefined || token !== FAKE_BOT_TOKEN) {
          response.writeHead(404).end();
          return;
        }
        response.writeHead(200, { 'content-type': stored.file.mimetype });
        response.end(stored.content);
        return;
      }
      const method = url.pathname.startsWith('/api/') ? url.pathname.slice('/api/'.length) : '';
      const token = bearer(request);
      const params = parseParams(request, body);
      const call: RecordedCall = { method, token, params };
      calls.push(call);
      for (const waiter of callWaiters.splice(0)) waiter();
      const next = scripted.get(method)?.shift();
      if (next === undefined) {
        call.answer = answer(method, params, token);
        sendJson(response, 200, call.answer);
      } else if ('error' in next) sendJson(response, 200, { ok: false, error: next.error });
      else if (next.status === 429) {
        const headers: Record<string, string> =
          next.retryAfterSeconds === undefined ? {} : { 'retry-after': String(next.retryAfterSeconds) };
        sendJson(response, 429, { ok: false, error: 'ratelimited' }, headers);
      } else sendJson(response, next.status, { ok: false, error: 'fake_outage' });
    })().catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });

  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request, socket, head) => {
    if (!(request.url ?? '').startsWith('/link/')) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      opened += 1;
      sockets.add(ws);
      latest = ws;
      ws.on('close', () => {
        sockets.delete(ws);
        for (const waiter of socketWaiters.splice(0)) waiter();
      });
      ws.on('message', (data) => {
        const parsed: unknown = JSON.parse(String(data));
        if (typeof parsed !== 'object' || parsed === null || !('envelope_id' in parsed)) return;
        const id = String(parsed.envelope_id);
        acks.get(id)?.resolve('payload' in parsed ? parsed.payload : undefined);
        acks.delete(id);
      });
      ws.send(JSON.stringify({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A1' } }), () => {
        helloed += 1;
        for (const waiter of socketWaiters.splice(0)) waiter();
      });
    });
  });

  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  function waitUntil(check: () => boolean, waiters: (() => void)[], what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fake Slack: no ${what} within 10 s`)), 10_000);
      const test = () => {
        if (check()) {
          clearTimeout(timer);
          resolve();
        } else waiters.push(test);
      };
      test();
    });
  }

  return {
    apiBaseUrl: `${origin}/api/`,
    origin,
    calls,
    fileDownloads,
    async waitForCall(method, n = 1) {
      const matching = () => calls.filter((call) => call.method === method);
      await waitUntil(() => matching().length >= n, callWaiters, `call #${n} of ${method}`);
      const call = matching()[n - 1];
      if (call === undefined) throw new Error(`fake Slack: call #${n} of ${method} vanished`);
      return call;
    },
    script(method, scriptedAnswer) {
      const queue = scripted.get(method) ?? [];
      queue.push(scriptedAnswer);
      scripted.set(method, queue);
    },
    addFile(content, name, mimetype) {
      const id = `F${files.size + 1}`;
      const file = { id, name, mimetype, size: content.length, url_private: `${origin}/files/${id}/${name}` };
      files.set(id, { content, file });
      return file;
    },
    socketConnections: () => opened,
    waitForSocket(n = 1) {
      return waitUntil(() => opened >= n && helloed >= n, socketWaiters, `Socket Mode connection #${n}`);
    },
    waitForSocketsClosed() {
      return waitUntil(() => sockets.size === 0, socketWaiters, 'close of every Socket Mode connection');
    },
    pushEnvelope(type, payload) {
      const socket = latest;
      if (socket === undefined) return Promise.reject(new Error('fake Slack: no Socket Mode connection'));
      const envelopeId = randomUUID();
      const acked = new Promise<unknown>((resolve) => acks.set(envelopeId, { resolve }));
      socket.send(JSON.stringify({ envelope_id: envelopeId, type, payload, accepts_response_payload: false }));
      return acked;
    },
    requestReconnect() {
      latest?.send(JSON.stringify({ type: 'disconnect', reason: 'refresh_requested' }));
    },
    async close() {
      for (const socket of sockets) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The `X-Slack-Signature` Slack sends: v0= HMAC-SHA256 of `v0:<timestamp>:<body>` with the signing secret. */
export function slackSignature(secret: string, timestampSeconds: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestampSeconds}:${body}`).digest('hex')}`;
}

export interface SignedPost {
  secret?: string;
  /** Unix seconds of `X-Slack-Request-Timestamp`; now by default. */
  timestampSeconds?: number;
  /** Replaces the computed signature (a forged or absent one: ''). */
  signature?: string;
}

/** Posts a body to a gateway route signed as Slack signs it; resolves with the status and the body text. */
export async function postSigned(
  url: string,
  body: string,
  contentType: string,
  { secret = FAKE_SIGNING_SECRET, timestampSeconds = Math.floor(Date.now() / 1000), signature }: SignedPost = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': contentType,
      'x-slack-request-timestamp': String(timestampSeconds),
      'x-slack-signature': signature ?? slackSignature(secret, timestampSeconds, body),
    },
    body,
  });
  return { status: response.status, text: await response.text() };
}

/** An Events API delivery (JSON) to `<base>/slack/events`. */
export function postEvent(baseUrl: string, payload: unknown, options?: SignedPost) {
  return postSigned(`${baseUrl}/slack/events`, JSON.stringify(payload), 'application/json', options);
}

/** An interactivity delivery (form `payload=<json>`) to `<base>/slack/interactive`. */
export function postInteractive(baseUrl: string, payload: unknown, options?: SignedPost) {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return postSigned(`${baseUrl}/slack/interactive`, body, 'application/x-www-form-urlencoded', options);
}

/** An event_callback wrapping `event`, as Slack posts it. */
export function eventCallback(event: Record<string, unknown>, eventId = `Ev${randomUUID().slice(0, 8)}`) {
  return {
    token: 'legacy',
    team_id: 'T1',
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: eventId,
    event_time: 1,
    event,
  };
}

/** A block_actions payload: `user` pressed the button `actionId` carrying `value` in `channel`. */
export function blockActions(user: string, channel: string, actionId: string, value: string) {
  return {
    type: 'block_actions',
    user: { id: user, username: 'operator' },
    channel: { id: channel, name: 'ops' },
    container: { type: 'message', channel_id: channel, message_ts: '1700000001.000100' },
    actions: [{ type: 'button', action_id: actionId, block_id: 'approval', value, action_ts: '1' }],
  };
}
