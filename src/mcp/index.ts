// MCP both ways: connections to the servers under mcp.servers (their tools, calls and states, the `mcp:` tool source
// of agents' turns, the mcp.* admin methods), and the gateway's own MCP server at /mcp (src/mcp/server).
export { createMcpServers, type McpServers, type McpToolResult } from './mcp-servers.js';
export { createMcpModule } from './module.js';
export { mcpMethods } from './methods.js';
export { createMcpServerModule } from './server/mcp-server-module.js';
