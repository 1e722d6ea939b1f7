// WebSocket JSON-RPC load: each connection keeps a fixed number of calls in flight and counts the answers.
import { performance } from 'node:perf_hooks';
import { WebSocket, type RawData } from 'ws';
import type { LoadConnections, LoadRun } from './load-run.js';

export interface WsLoadTarget {
  /** ws:// URL on a loopback address. */
  url: string;
  headers?: Record<string, string>;
  connections: number;
  /** Requests each connection keeps in flight (1 = strict request/response). */
  depth: number;
  method: string;
  /** Named params, sent as-is; omitted from the request when absent. */
  params?: Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function openSocket(target: WsLoadTarget): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(target.url, { headers: target.headers ?? {}, perMessageDeflate: false });
    socket.once('open', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Opens every connection up front, so handshakes are not part of the measurement. */
export async function connectWsLoad(target: WsLoadTarget): Promise<LoadConnections> {
  const sockets = await Promise.all(Array.from({ length: target.connections }, () => openSocket(target)));
  // Only the id changes between requests, so the rest of the text is built once.
  const head = JSON.stringify(
    target.params === undefined
      ? { jsonrpc: '2.0', method: target.method }
      : { jsonrpc: '2.0', method: target.method, params: target.params },
  ).slice(0, -1);
  let sampleBody: string | undefined;

  return {
    sampleBody: () => sampleBody ?? '',
    start(run: LoadRun) {
      let open = sockets.length;
      for (const socket of sockets) {
        let nextId = 1;
        // Insertion-ordered, so an answer with a null id (a transport error) settles the oldest call.
        const pending = new Map<number, number>();
        const send = () => {
          const id = nextId++;
          pending.set(id, performance.now());
          socket.send(`${head},"id":${id}}`);
        };
        socket.on('message', (data: RawData) => {
          const text = data.toString();
          sampleBody ??= text;
          let message: unknown;
          try {
            message = JSON.parse(text);
          } catch {
            message = undefined;
          }
          if (!isRecord(message) || !('id' in message)) return; // a notification, e.g. the heartbeat
          const id =
            typeof message.id === 'number' && pending.has(message.id) ? message.id : pending.keys().next().value;
          if (id === undefined) return;
          const startedAt = pending.get(id) ?? performance.now();
          pending.delete(id);
          if (run.complete(startedAt, 'result' in message)) send();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => {
          open -= 1;
          if (!run.isRunning) return;
          run.fail();
          if (open === 0) run.stop();
        });
        for (let i = 0; i < target.depth; i += 1) send();
      }
    },
    async close() {
      await Promise.all(
        sockets.map(
          (socket) =>
            new Promise<void>((resolve) => {
              if (socket.readyState === WebSocket.CLOSED) return resolve();
              socket.once('close', () => resolve());
              socket.close(1000, 'bench done');
              setTimeout(() => {
                socket.terminate();
                resolve();
              }, 1000).unref();
            }),
        ),
      );
    },
  };
}
