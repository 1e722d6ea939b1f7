// A stateless reverse proxy in front of the bench fake LLM: the physical limit of any gateway that answers by calling the upstream.
//
// node:http server, one keep-alive undici Pool to the upstream, no parsing, no state: the request body is
// streamed up, the status, content type and body streamed back. It runs in the calling thread, beside the
// fake LLM, exactly as the gateway contender does, so their server CPU per request compares like with like.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool } from 'undici';
import { startBenchLlm, type BenchLlm } from './fake-llm.js';
import { listenOnLoopback, type ListeningServer } from './servers.js';

export interface ProxyOverLlm extends ListeningServer {
  llm: BenchLlm;
}

/** Idle upstream connections are kept this long, far beyond any gap inside a run. */
const KEEP_ALIVE_TIMEOUT_MS = 30_000;

export async function startProxyOverLlm(): Promise<ProxyOverLlm> {
  const llm = await startBenchLlm();
  const pool = new Pool(llm.url, { keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, headersTimeout: 0, bodyTimeout: 0 });
  const forward = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const headers: Record<string, string> = {};
    const type = request.headers['content-type'];
    if (type !== undefined) headers['content-type'] = type;
    const authorization = request.headers.authorization;
    if (authorization !== undefined) headers.authorization = authorization;
    const upstream = await pool.request({
      method: request.method === 'GET' ? 'GET' : 'POST',
      path: request.url ?? '/',
      headers,
      body: request,
    });
    const upstreamType = upstream.headers['content-type'];
    response.writeHead(upstream.statusCode, typeof upstreamType === 'string' ? { 'content-type': upstreamType } : {});
    const chunks: AsyncIterable<Buffer> = upstream.body;
    for await (const chunk of chunks) response.write(chunk);
    response.end();
  };
  const server = createServer((request, response) => {
    forward(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
  });
  const listening = await listenOnLoopback(server);
  return {
    ...listening,
    llm,
    async close() {
      await listening.close();
      await pool.close();
      await llm.close();
    },
  };
}
