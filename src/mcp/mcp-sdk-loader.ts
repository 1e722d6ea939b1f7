// Loads the MCP SDK on first use: its protocol schemas and transports cost ~240 ms and ~32 MB, which a gateway with no
// MCP server configured and no /mcp client should not pay at start.
type McpSdk = typeof import('./sdk.js');

let loading: Promise<McpSdk> | undefined;
let loaded: McpSdk | undefined;

/** The SDK, imported once; every path into MCP (a connection, a probe, a /mcp request) awaits it first. */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= import('./sdk.js').then((sdk) => (loaded = sdk));
  return loading;
}

/** The SDK once loadMcpSdk() has resolved; code reached only after that awaits it reads it here synchronously. */
export function mcpSdk(): McpSdk {
  if (loaded === undefined) throw new Error('the MCP SDK is used before loadMcpSdk() resolved');
  return loaded;
}
