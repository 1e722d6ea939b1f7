// Listening helpers for the bare baseline servers (and fake upstreams) that benchmarks start beside the gateway.
import type { Server } from 'node:http';

export interface ListeningServer {
  host: string;
  port: number;
  /** http://127.0.0.1:<port> */
  url: string;
  /** Stops accepting and drops open connections. */
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 with a free port; closing also ends keep-alive and upgraded connections. */
export async function listenOnLoopback(
  server: Server,
  onClose: () => void = () => undefined,
): Promise<ListeningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server is not listening on a TCP port');
  const { port } = address;
  return {
    host: '127.0.0.1',
    port,
    url: `http://127.0.0.1:${port}`,
    async close() {
      onClose();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
