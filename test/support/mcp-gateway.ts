// A started gateway with MCP servers configured and the fake LLM as its provider, and what the MCP tests ask of it.
import { fileURLToPath } from 'node:url';
import type { ConfigInput } from '../../src/config/index.js';
import type { FakeLlm } from './fake-llm-server.js';
import { startGateway, type Harness, type HarnessOptions } from './gateway-harness.js';
import { callRpc } from './http-client.js';

type AgentInput = NonNullable<ConfigInput['agents']>[string];

export const MCP_STDIO_SCRIPT = fileURLToPath(new URL('./mcp-stdio-server.ts', import.meta.url));

/** An mcp.servers entry that starts the stdio fixture as the gateway's child. */
export const stdioFixture = (extra: Record<string, unknown> = {}) => ({
  transport: 'stdio' as const,
  command: process.execPath,
  args: ['--import', 'tsx', MCP_STDIO_SCRIPT],
  ...extra,
});

export interface McpGatewayOptions {
  mcp: ConfigInput['mcp'];
  /** The default agent's tools list. */
  tools: string[];
  requireApproval?: AgentInput['requireApproval'];
  orchestrate?: HarnessOptions['orchestrate'];
  gateway?: HarnessOptions['gateway'];
  app?: HarnessOptions['app'];
  log?: HarnessOptions['log'];
}

export function startMcpGateway(llm: FakeLlm, options: McpGatewayOptions): Promise<Harness> {
  return startGateway({
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        models: [{ id: 'fake-model', contextWindow: 8000, maxTokens: 512 }],
      },
    },
    agents: {
      default: {
        name: 'Assistant',
        provider: 'fake',
        model: 'fake-model',
        tools: options.tools,
        ...(options.requireApproval === undefined ? {} : { requireApproval: options.requireApproval }),
      },
    },
    mcp: options.mcp,
    ...(options.orchestrate === undefined ? {} : { orchestrate: options.orchestrate }),
    ...(options.gateway === undefined ? {} : { gateway: options.gateway }),
    ...(options.app === undefined ? {} : { app: options.app }),
    ...(options.log === undefined ? {} : { log: options.log }),
  });
}

export const sessionKeyOf = (peerId: string) => `default:alice:test:${peerId}`;

/** An admin JSON-RPC call that must succeed; its result. */
export async function adminCall(harness: Harness, method: string, params: unknown = {}): Promise<unknown> {
  const response = await callRpc(harness.url, harness.tokens.admin, method, params);
  if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
  return response.result;
}

/** One turn of the default agent over /rpc; its result. */
export async function executeTurn(harness: Harness, peerId: string, message: string) {
  return (await adminCall(harness, 'agent.execute', {
    message,
    sessionKey: { tenantId: 'default', userId: 'alice', channelId: 'test', peerId },
  })) as { response: string; finishReason: string };
}

interface ChatBody {
  messages: { role: string; content?: unknown }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
}

const bodyOf = (llm: FakeLlm, index: number) => llm.chatRequests().at(index)?.body as ChatBody | undefined;

/** The tools (OpenAI function shape) the model was offered in a chat request (default: the latest). */
export function toolsOffered(llm: FakeLlm, index = -1) {
  return (bodyOf(llm, index)?.tools ?? []).map((tool) => tool.function);
}

/** The tool results the model was sent in a chat request (default: the latest), in order. */
export function toolResultsOf(llm: FakeLlm, index = -1): string[] {
  return (bodyOf(llm, index)?.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
}

export interface ServerEntry {
  name: string;
  transport: string;
  state: string;
  tools: number;
  lastError?: string;
  connectedAt?: number;
  stderr?: string;
}

export async function serversListed(harness: Harness): Promise<ServerEntry[]> {
  return ((await adminCall(harness, 'mcp.servers.list')) as { servers: ServerEntry[] }).servers;
}
