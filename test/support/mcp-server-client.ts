// The SDK's own MCP Client over Streamable HTTP against a started gateway's /mcp, with a bearer token; and raw requests.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll } from 'vitest';
import { startFakeLlm, type FakeLlm } from './fake-llm-server.js';
import { startGateway, type Harness } from './gateway-harness.js';

export interface McpTestClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Resolves at the next notifications/tools/list_changed the gateway sends this session. */
  nextListChanged(): Promise<void>;
  close(): Promise<void>;
}

/** Connects (initialize + initialized) as `token`; throws what the SDK throws when the gateway refuses. */
export async function connectMcp(url: string, token: string): Promise<McpTestClient> {
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  let waiters: (() => void)[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  });
  await client.connect(transport);
  return {
    client,
    transport,
    nextListChanged: () => new Promise<void>((resolve) => waiters.push(resolve)),
    close: () => client.close(),
  };
}

/** The text of a tools/call result's first content block ('' when it has none). */
export function textOf(result: object): string {
  const content: unknown = 'content' in result ? result.content : undefined;
  const [first]: unknown[] = Array.isArray(content) ? content : [];
  if (typeof first !== 'object' || first === null || !('text' in first)) return '';
  return typeof first.text === 'string' ? first.text : '';
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

export interface RawMcpReply {
  status: number;
  sessionId: string | null;
  body: unknown;
}

/** One raw POST /mcp with the headers Streamable HTTP asks for; `body` defaults to an initialize request. */
export async function postMcp(
  url: string,
  { token, sessionId, body = INITIALIZE }: { token?: string; sessionId?: string; body?: unknown },
): Promise<RawMcpReply> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // An SSE or empty answer stays text.
  }
  return { status: response.status, sessionId: response.headers.get('mcp-session-id'), body: parsed };
}

export interface McpServerWorld {
  llm: FakeLlm;
  harness: Harness;
}

/**
 * A fake LLM and a gateway whose one agent (`default`) uses it, started before the describe block's tests and closed
 * after them; read its parts inside tests (they exist once beforeAll has run).
 */
export function useMcpServerWorld(): McpServerWorld {
  const world = {} as McpServerWorld;
  beforeAll(async () => {
    world.llm = await startFakeLlm({ models: ['fake-model'] });
    world.harness = await startGateway({
      providers: { fake: { type: 'openai-compatible', baseUrl: world.llm.baseUrl, models: [{ id: 'fake-model' }] } },
      agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    });
  });
  afterAll(async () => {
    await world.harness?.close();
    await world.llm?.close();
  });
  return world;
}
