// mcp.servers.test: a fresh connection to one server, apart from the kept one, that lists its tools and is closed.
import type { McpServerConfig } from '../config/index.js';
import { isTimeout, openConnection, reasonOf, transportOf } from './mcp-connection.js';
import { loadMcpSdk } from './mcp-sdk-loader.js';

export interface McpProbeResult {
  ok: boolean;
  latencyMs: number;
  /** The allowed tools' names; empty when the probe failed. */
  tools: string[];
  error?: string;
}

/** Connects, lists the allowed tools and closes (a stdio child is ended); bounded by the server's timeoutMs. */
export async function probeServer(config: McpServerConfig, now: () => number): Promise<McpProbeResult> {
  await loadMcpSdk();
  const startedAt = now();
  try {
    const { client, tools } = await openConnection(config, transportOf(config).transport);
    await client.close();
    return { ok: true, latencyMs: now() - startedAt, tools: tools.map((tool) => tool.name) };
  } catch (error) {
    const reason = isTimeout(error) ? `no answer within ${config.timeoutMs} ms` : reasonOf(error);
    return { ok: false, latencyMs: now() - startedAt, tools: [], error: reason };
  }
}
