// A `ws` test client that queues every frame from the moment it connects, so no message is missed.
import { WebSocket, type ClientOptions } from 'ws';

export interface CloseEvent {
  code: number;
  reason: string;
}

/** One parsed JSON frame from the server. */
export type Frame = Record<string, unknown>;

export interface TestSocket {
  readonly socket: WebSocket;
  /** Resolves once the upgrade succeeded (open), rejects when it was refused. */
  readonly opened: Promise<void>;
  /** Resolves with the close code and reason whenever the socket closes. */
  readonly closed: Promise<CloseEvent>;
  /** Every frame received so far, in order (including those already returned by next()). */
  readonly received: Frame[];
  /** The next frame not yet returned by next(); rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<Frame>;
  /** Waits for the first frame (received or future) that `match` accepts. */
  waitFor(match: (frame: Frame) => boolean, timeoutMs?: number): Promise<Frame>;
  send(value: unknown): void;
  /** Sends one request and waits for the response with the same id. */
  call(method: string, params?: unknown): Promise<Frame>;
  close(): Promise<CloseEvent>;
}

export interface ConnectOptions extends ClientOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
}

let nextId = 1_000;

export function connect(url: string, { token, headers, ...options }: ConnectOptions = {}): TestSocket {
  const socket = new WebSocket(url, {
    ...options,
    headers: { ...headers, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
  });
  const received: Frame[] = [];
  let cursor = 0;
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };

  socket.on('message', (data, isBinary) => {
    const text = isBinary ? '' : data.toString();
    received.push(JSON.parse(text) as Frame);
    wake();
  });
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) =>
      reject(new Error(`upgrade refused: HTTP ${response.statusCode}`)),
    );
  });
  // Keep a refused upgrade from surfacing as an unhandled rejection when a test only awaits `closed`.
  opened.catch(() => undefined);
  socket.on('error', () => undefined);
  const closed = new Promise<CloseEvent>((resolve) => {
    socket.once('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      wake();
    });
  });

  function waitFor(match: (frame: Frame) => boolean, timeoutMs = 5_000): Promise<Frame> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(received)}`)),
        timeoutMs,
      );
      const check = () => {
        const found = received.find(match);
        if (found !== undefined) {
          clearTimeout(timer);
          resolve(found);
        } else if (socket.readyState === WebSocket.CLOSED) {
          clearTimeout(timer);
          reject(new Error(`socket closed before a matching frame; got ${JSON.stringify(received)}`));
        } else {
          waiters.push(check);
        }
      };
      check();
    });
  }

  return {
    socket,
    opened,
    closed,
    received,
    next(timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no frame within ${timeoutMs} ms`)), timeoutMs);
        const check = () => {
          const frame = received[cursor];
          if (frame !== undefined) {
            cursor += 1;
            clearTimeout(timer);
            resolve(frame);
          } else if (socket.readyState === WebSocket.CLOSED) {
            clearTimeout(timer);
            reject(new Error('socket closed before the next frame'));
          } else {
            waiters.push(check);
          }
        };
        check();
      });
    },
    waitFor,
    send(value) {
      socket.send(typeof value === 'string' ? value : JSON.stringify(value));
    },
    async call(method, params) {
      await opened;
      const id = nextId++;
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
      return waitFor((frame) => frame.id === id);
    },
    async close() {
      if (socket.readyState !== WebSocket.CLOSED) socket.close(1000);
      return closed;
    },
  };
}

/** Connects and waits for the open event. */
export async function connectOpen(url: string, options: ConnectOptions = {}): Promise<TestSocket> {
  const client = connect(url, options);
  await client.opened;
  return client;
}
