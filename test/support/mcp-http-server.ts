// An MCP server over Streamable HTTP for tests, on a free loopback port: the fixture tools, stateless.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createFixtureMcpServer } from './mcp-fixture-tools.js';

export interface McpHttpFixture {
  url: string;
  /** The headers of every request received, oldest first. */
  readonly headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/** Each POST gets its own McpServer and transport (the SDK's stateless mode); port 0 lets the OS pick a free port. */
export async function startMcpHttpServer(): Promise<McpHttpFixture> {
  const headers: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    headers.push(req.headers);
    const mcp = createFixtureMcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    mcp
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP port was assigned');
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    headers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
