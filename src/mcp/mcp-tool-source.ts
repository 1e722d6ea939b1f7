// The `mcp:` tool source: an agent's `mcp:<server>` and `mcp:<server>/<tool>` entries as tools named
// `<server>__<tool>` with the server's own schema, and a failing stand-in for what cannot be reached (mcp_unavailable).
import { z } from 'zod';
import { defineTool, type ToolDefinition, type ToolSource } from '../agents/index.js';
import {
  isGatewayError,
  mcpServerNotConfigured,
  mcpServerUnavailable,
  mcpToolError,
  mcpToolNotOffered,
} from '../errors.js';
import type { McpServers, McpTool, McpToolResult } from './mcp-servers.js';

/** Characters of a tool's own error text (isError: true) the model is shown. */
const MAX_TOOL_ERROR_CHARS = 2_000;
/** Characters providers accept in a tool name (OpenAI: ^[a-zA-Z0-9_-]{1,64}$). */
const MAX_TOOL_NAME_CHARS = 64;

/** MCP servers validate their own input; the gateway only checks that the arguments are an object. */
const anyObject = z.record(z.string(), z.unknown());
const NO_INPUT = { type: 'object', properties: {} };

/** `<server>__<tool>`, with characters providers refuse in a tool name replaced by `_`. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, MAX_TOOL_NAME_CHARS);
}

/** What the model sees of a result: the text parts as they are, anything else as JSON. */
function textOf(result: McpToolResult): string {
  const parts = result.content.map((part) => (part.type === 'text' ? part.text : JSON.stringify(part)));
  if (result.structuredContent !== undefined && parts.length === 0) return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}

function definitionOf(servers: McpServers, server: string, tool: McpTool): ToolDefinition {
  return defineTool({
    name: mcpToolName(server, tool.name),
    description: tool.description ?? `Tool ${tool.name} of MCP server ${server}`,
    input: anyObject,
    inputSchema: tool.inputSchema,
    async execute(input, ctx) {
      const result = await servers.callTool(server, tool.name, input, ctx.signal);
      const text = textOf(result);
      if (result.isError) throw mcpToolError(server, tool.name, text.slice(0, MAX_TOOL_ERROR_CHARS));
      return text;
    },
  });
}

/** A tool that only fails, offered so the model (and the turn's evidence) see the server is unavailable and why. */
function standIn(name: string, error: Error): ToolDefinition {
  return {
    name,
    description: `Unavailable: ${error.message}. Calling it fails; tell the user this tool cannot be used now.`,
    input: anyObject,
    inputSchema: NO_INPUT,
    unavailable: error.message,
    execute: () => Promise.reject(error),
  };
}

/** The error a turn's stand-in fails with: always mcp_unavailable, whatever the server lookup threw. */
function unavailableError(servers: McpServers, server: string, error: unknown): Error {
  if (!servers.names().includes(server)) return mcpServerNotConfigured(server);
  if (isGatewayError(error) && error.details.toolErrorKind === 'mcp_unavailable') return error;
  return mcpServerUnavailable(server, error instanceof Error ? error.message : String(error));
}

export function createMcpToolSource(servers: McpServers): ToolSource {
  /** Definitions per listed tool object: a server's listing is reused until it changes, and so are they. */
  const definitions = new WeakMap<McpTool, ToolDefinition>();
  const definition = (server: string, tool: McpTool) => {
    let known = definitions.get(tool);
    if (known === undefined) {
      known = definitionOf(servers, server, tool);
      definitions.set(tool, known);
    }
    return known;
  };

  return {
    knows(ref) {
      const slash = ref.indexOf('/');
      return servers.names().includes(slash < 0 ? ref : ref.slice(0, slash));
    },
    async resolve(ref) {
      const slash = ref.indexOf('/');
      const server = slash < 0 ? ref : ref.slice(0, slash);
      const only = slash < 0 ? undefined : ref.slice(slash + 1);
      const standInName = mcpToolName(server, only ?? 'unavailable');
      let tools: McpTool[];
      try {
        tools = await servers.listTools(server);
      } catch (error) {
        return [standIn(standInName, unavailableError(servers, server, error))];
      }
      if (only === undefined) return tools.map((tool) => definition(server, tool));
      const tool = tools.find((listed) => listed.name === only);
      return tool === undefined ? [standIn(standInName, mcpToolNotOffered(server, only))] : [definition(server, tool)];
    },
  };
}
