// MCP servers as agent tools: connections to the servers under mcp.servers, their tools, calls and states.
export { createMcpServers, type McpServers, type McpToolResult } from './mcp-servers.js';
export { createMcpServerModule } from './server/mcp-server-module.js';
