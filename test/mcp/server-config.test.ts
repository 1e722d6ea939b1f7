// The mcp.server config key (the gateway as an MCP server): defaults, exposeTools, and the refusals that name the key.
import { describe, expect, it } from 'vitest';
import { ConfigError, validateConfig } from '../../src/config/index.js';

function problemsOf(document: unknown): string[] {
  try {
    validateConfig(document, 'test.yaml');
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

describe('mcp.server config', () => {
  it('exposes no gateway tool by default and bounds sessions', () => {
    expect(validateConfig({ mcp: { servers: {} } }, 'test.yaml').mcp.server).toEqual({
      exposeTools: [],
      maxSessionsPerToken: 16,
      maxSessions: 1_000,
      sessionIdleMs: 1_800_000,
    });
  });

  it('keeps the tool names given, beside mcp.servers', () => {
    const { mcp } = validateConfig({ mcp: { server: { exposeTools: ['current_time'], maxSessions: 5 } } }, 't.yaml');
    expect(mcp.server).toMatchObject({ exposeTools: ['current_time'], maxSessions: 5 });
    expect(mcp.servers).toEqual({});
  });

  it('refuses unknown keys, empty names and sessions bounds below one, naming the key', () => {
    expect(problemsOf({ mcp: { server: { port: 1 } } }).join('\n')).toMatch(/mcp\.server/);
    expect(problemsOf({ mcp: { server: { exposeTools: [''] } } }).join('\n')).toMatch(/mcp\.server\.exposeTools/);
    expect(problemsOf({ mcp: { server: { maxSessionsPerToken: 0 } } }).join('\n')).toMatch(
      /mcp\.server\.maxSessionsPerToken/,
    );
    expect(problemsOf({ mcp: { server: { sessionIdleMs: 0 } } }).join('\n')).toMatch(/mcp\.server\.sessionIdleMs/);
  });
});
