// JSON-RPC 2.0 over one WebSocket to /ws: requests by id, notifications to listeners, reconnect with backoff.
import { signal } from '@preact/signals';
// Types only (erased from the bundle): each method's params and result, read from the gateway's method declarations.
import type { MethodMap, MethodName } from '../../../src/method-map';
import { isRecord } from './is-record';

export type { MethodName } from '../../../src/method-map';

/** What `method` answers, as its handler returns it. */
export type ResultOf<M extends MethodName> = MethodMap[M]['result'];
/** The params `method` takes, as its zod schema reads them. */
export type ParamsOf<M extends MethodName> = MethodMap[M]['params'];
/** The params argument: optional when the method needs none. */
type ParamsArg<M extends MethodName> = {} extends ParamsOf<M> ? [params?: ParamsOf<M>] : [params: ParamsOf<M>];

export type ConnectionState = 'idle' | 'connecting' | 'open' | 'closed' | 'unauthorized';

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'RpcError';
  }
  /** The error catalogue kind (DESIGN §3: error.data.kind), when the server sent one. */
  get kind(): string | undefined {
    return typeof this.data.kind === 'string' ? this.data.kind : undefined;
  }
  get param(): string | undefined {
    return typeof this.data.param === 'string' ? this.data.param : undefined;
  }
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

type Listener = (params: unknown) => void;

/** Backoff between reconnects: doubles from the first to the last, with jitter. */
const RECONNECT_FIRST_MS = 500;
const RECONNECT_MAX_MS = 15_000;
/** Close code the gateway uses for a bad, revoked or rotated token (spec: 4001). */
const CLOSE_UNAUTHORIZED = 4001;

export const connection = signal<ConnectionState>('idle');

let socket: WebSocket | null = null;
let secret: string | null = null;
let nextId = 1;
let attempt = 0;
let reconnectTimer: ReturnType<typeof setTimeout> | undefined;
const pending = new Map<number, Pending>();
const queued: string[] = [];
const listeners = new Map<string, Set<Listener>>();
const reconnectHooks = new Set<() => void>();

function wsUrl(token: string): string {
  const url = new URL('/ws', location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  // Browsers cannot set an Authorization header on a WebSocket; the spec's way for them is the token query parameter.
  url.searchParams.set('token', token);
  return url.href;
}

function failAll(error: Error): void {
  for (const entry of pending.values()) entry.reject(error);
  pending.clear();
}

function onMessage(event: MessageEvent): void {
  if (typeof event.data !== 'string') return;
  const frames: unknown = JSON.parse(event.data);
  for (const frame of Array.isArray(frames) ? frames : [frames]) handleFrame(frame);
}

function handleFrame(record: unknown): void {
  if (!isRecord(record)) return;
  if (typeof record.method === 'string' && record.id === undefined) {
    for (const listener of listeners.get(record.method) ?? []) listener(record.params);
    return;
  }
  if (typeof record.id !== 'number') return;
  const entry = pending.get(record.id);
  if (entry === undefined) return;
  pending.delete(record.id);
  const { error } = record;
  if (isRecord(error))
    entry.reject(new RpcError(Number(error.code), String(error.message), isRecord(error.data) ? error.data : {}));
  else entry.resolve(record.result);
}

function open(): void {
  if (secret === null) return;
  connection.value = 'connecting';
  const ws = new WebSocket(wsUrl(secret));
  socket = ws;
  ws.addEventListener('open', () => {
    if (socket !== ws) return;
    const wasReconnect = attempt > 0;
    attempt = 0;
    connection.value = 'open';
    for (const text of queued.splice(0)) ws.send(text);
    if (wasReconnect) for (const hook of reconnectHooks) hook();
  });
  ws.addEventListener('message', onMessage);
  ws.addEventListener('close', (event) => {
    if (socket !== ws) return;
    socket = null;
    failAll(new RpcError(-32603, 'Connection closed', { kind: 'unavailable' }));
    if (event.code === CLOSE_UNAUTHORIZED) {
      connection.value = 'unauthorized';
      return;
    }
    connection.value = 'closed';
    scheduleReconnect();
  });
}

function scheduleReconnect(): void {
  if (secret === null) return;
  const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** attempt) * (0.75 + Math.random() / 2);
  attempt += 1;
  clearTimeout(reconnectTimer);
  reconnectTimer = setTimeout(open, delay);
}

/** Opens the socket with this token (or closes it with null). */
export function connect(token: string | null): void {
  if (token === secret && socket !== null) return;
  secret = token;
  clearTimeout(reconnectTimer);
  const old = socket;
  socket = null;
  old?.close(1000);
  failAll(new RpcError(-32603, 'Signed out', { kind: 'unavailable' }));
  queued.length = 0;
  attempt = 0;
  if (token === null) connection.value = 'idle';
  else open();
}

/**
 * Calls one method, its params and result typed from the gateway's declaration of it; rejects with RpcError (or a
 * closed-connection error).
 */
export function call<M extends MethodName>(method: M, ...[params = {}]: ParamsArg<M>): Promise<ResultOf<M>> {
  const id = nextId++;
  const text = JSON.stringify({ jsonrpc: '2.0', id, method, params });
  return new Promise<ResultOf<M>>((resolve, reject) => {
    // The one place a reply gets its type: the gateway answers `method` with what its handler returned.
    pending.set(id, { resolve: (value) => resolve(value as ResultOf<M>), reject });
    if (socket !== null && socket.readyState === WebSocket.OPEN) socket.send(text);
    else queued.push(text);
  });
}

/** Runs after every reconnect, so pages reload what they show and resubscribe. */
export function onReconnect(hook: () => void): () => void {
  reconnectHooks.add(hook);
  return () => reconnectHooks.delete(hook);
}
