// A TCP port that was free a moment ago on 127.0.0.1, for a server a test or bench starts as its own process.
import { createServer } from 'node:net';

/** The OS picks the port; another process may take it before the caller's server binds it, so callers retry. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP port was assigned');
  return address.port;
}
