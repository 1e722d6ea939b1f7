// An MCP server over stdio for tests, run as a child (`node --import tsx`): the fixture tools on stdin/stdout.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createFixtureMcpServer } from './mcp-fixture-tools.js';

// A line on stderr at start, so tests can see the gateway capture it.
process.stderr.write(`mcp fixture ${process.pid} started\n`);
await createFixtureMcpServer().connect(new StdioServerTransport());
