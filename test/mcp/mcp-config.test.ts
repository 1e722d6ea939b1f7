// The mcp.servers config section: its two transports, its defaults, and the refusals that name the key.
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

describe('mcp.servers config', () => {
  it('has no servers by default', () => {
    expect(validateConfig({}, 'empty').mcp).toEqual({
      servers: {},
      maxResultBytes: 1_048_576,
      server: { exposeTools: [], maxSessionsPerToken: 16, maxSessions: 1_000, sessionIdleMs: 1_800_000 },
    });
  });

  it('fills the defaults of a stdio and an http server', () => {
    const { mcp } = validateConfig(
      {
        mcp: {
          servers: {
            files: { transport: 'stdio', command: 'node' },
            'git_hub-2': { transport: 'http', url: 'http://127.0.0.1:9/mcp', tools: ['create_issue'], enabled: false },
          },
        },
      },
      'test.yaml',
    );
    expect(mcp.servers).toEqual({
      files: { transport: 'stdio', command: 'node', args: [], env: {}, timeoutMs: 30_000, enabled: true },
      'git_hub-2': {
        transport: 'http',
        url: 'http://127.0.0.1:9/mcp',
        headers: {},
        tools: ['create_issue'],
        timeoutMs: 30_000,
        enabled: false,
      },
    });
  });

  it('refuses unknown keys, a bad server name, a missing command and a non-http url', () => {
    expect(
      problemsOf({ mcp: { servers: { a: { transport: 'stdio', command: 'x', shell: true } } } }).join('\n'),
    ).toMatch(/mcp\.servers\.a/);
    expect(problemsOf({ mcp: { servers: { 'a.b': { transport: 'stdio', command: 'x' } } } }).join('\n')).toMatch(
      /mcp\.servers/,
    );
    expect(problemsOf({ mcp: { servers: { a: { transport: 'stdio' } } } }).join('\n')).toMatch(
      /mcp\.servers\.a\.command/,
    );
    expect(
      problemsOf({ mcp: { servers: { a: { transport: 'http', url: 'file:///etc/passwd' } } } }).join('\n'),
    ).toMatch(/mcp\.servers\.a\.url/);
    expect(problemsOf({ mcp: { servers: { a: { transport: 'ws', url: 'http://x' } } } }).join('\n')).toMatch(
      /mcp\.servers\.a/,
    );
  });
});
