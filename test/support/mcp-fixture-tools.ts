// The tools of the MCP fixture servers (stdio and HTTP), written with the SDK's own McpServer.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/**
 * echo, slow (answers after `ms`), big (a text of `chars` characters), pid (the serving process) and add_tool (adds a
 * tool `name` answering `added`: the SDK then sends notifications/tools/list_changed).
 */
export function createFixtureMcpServer(): McpServer {
  const server = new McpServer({ name: 'fixture', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Answers the text it is given', inputSchema: { text: z.string() } },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'slow',
    { description: 'Answers after ms milliseconds', inputSchema: { ms: z.number().int().min(0) } },
    async ({ ms }) => {
      // unref: a call the client gave up on must not keep the fixture's process alive.
      await new Promise((resolve) => setTimeout(resolve, ms).unref());
      return { content: [{ type: 'text', text: 'done' }] };
    },
  );
  server.registerTool(
    'big',
    { description: 'Answers a text of chars characters', inputSchema: { chars: z.number().int().min(0) } },
    ({ chars }) => ({ content: [{ type: 'text', text: 'x'.repeat(chars) }] }),
  );
  server.registerTool('pid', { description: 'Answers the id of the serving process' }, () => ({
    content: [{ type: 'text', text: String(process.pid) }],
  }));
  server.registerTool(
    'add_tool',
    { description: 'Adds a tool of the given name', inputSchema: { name: z.string().min(1) } },
    ({ name }) => {
      server.registerTool(name, { description: `Added as ${name}` }, () => ({
        content: [{ type: 'text', text: 'added' }],
      }));
      return { content: [{ type: 'text', text: `added ${name}` }] };
    },
  );
  return server;
}
