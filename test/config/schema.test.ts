// The config schema: the spec's defaults for every gateway.* key and error messages that name the key.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, configSchema, validateConfig } from '../../src/config/index.js';

const SECRET = 'a-secret-that-is-long-enough-0123456789';

function problemsOf(document: unknown): string[] {
  try {
    validateConfig(document, 'test.yaml');
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

describe('config schema', () => {
  it('fills every gateway key with the default of the spec and DESIGN.md', () => {
    const { gateway } = validateConfig({}, 'empty');
    expect(gateway).toEqual({
      enabled: true,
      host: '127.0.0.1',
      port: 4766,
      tokens: [],
      rateLimit: { windowMs: 60_000, maxRequests: 100 },
      httpBodyLimitBytes: 1_048_576,
      maxConnections: 10_000,
      headersTimeoutMs: 10_000,
      maxConnectionsPerAddress: 1_000,
      unauthenticatedBodyTimeoutMs: 10_000,
      wsHeartbeatMs: 30_000,
      wsMessageRateLimit: { maxMessages: 600, windowMs: 60_000 },
      wsMaxMessageBytes: 1_048_576,
      maxBatchSize: 50,
      web: { enabled: true },
      webDistPath: null,
      tls: { certPath: null, keyPath: null, caPath: null, requireClientCert: false },
      cors: { origins: [] },
      sseReplayEvents: 1000,
      maxWaitingTurnsPerSession: 16,
    });
  });

  it('accepts CORS origins only as the Origin header carries them, and refuses a wildcard', () => {
    const origins = ['https://app.example.com', 'http://localhost:5173', 'https://xn--bcher-kva.example'];
    expect(validateConfig({ gateway: { cors: { origins } } }, 'x').gateway.cors.origins).toEqual(origins);
    for (const bad of [
      '*',
      'https://app.example.com/',
      'https://app.example.com/path',
      'HTTPS://App.example.com',
      'https://app.example.com:443',
      'ftp://files.example.com',
      'null',
      'app.example.com',
    ]) {
      expect(problemsOf({ gateway: { cors: { origins: [bad] } } }), bad).toEqual([
        expect.stringMatching(/^gateway\.cors\.origins\[0\]: must be an origin like https:\/\/app\.example\.com/),
      ]);
    }
    expect(problemsOf({ gateway: { cors: { origin: ['https://app.example.com'] } } })).toEqual([
      expect.stringMatching(/gateway\.cors.*origin/),
    ]);
    expect(problemsOf({ gateway: { sseReplayEvents: -1 } })).toEqual([
      expect.stringMatching(/^gateway\.sseReplayEvents/),
    ]);
  });

  it('treats an empty document (null) like an empty object', () => {
    expect(validateConfig(null, 'empty').gateway.port).toBe(4766);
  });

  it('keeps the defaults of a nested section when only one of its keys is set', () => {
    const { gateway } = validateConfig(
      { gateway: { rateLimit: { maxRequests: 5 }, wsMessageRateLimit: { windowMs: 1000 } } },
      'x',
    );
    expect(gateway.rateLimit).toEqual({ windowMs: 60_000, maxRequests: 5 });
    expect(gateway.wsMessageRateLimit).toEqual({ maxMessages: 600, windowMs: 1000 });
  });

  it('gives a token empty scopes (all scopes) when scopes is omitted', () => {
    const { gateway } = validateConfig({ gateway: { tokens: [{ id: 'a', secret: SECRET }] } }, 'x');
    expect(gateway.tokens).toEqual([{ id: 'a', secret: SECRET, scopes: [] }]);
  });

  it('accepts wsHeartbeatMs 0 (heartbeat disabled) and port 0 (any free port)', () => {
    const { gateway } = validateConfig({ gateway: { wsHeartbeatMs: 0, port: 0 } }, 'x');
    expect(gateway.wsHeartbeatMs).toBe(0);
    expect(gateway.port).toBe(0);
  });

  it('names the key of a secret shorter than 32 characters', () => {
    expect(problemsOf({ gateway: { tokens: [{ id: 'a', secret: 'short' }] } })).toEqual([
      'gateway.tokens[0].secret: must be at least 32 characters',
    ]);
  });

  it('accepts a secret of exactly 32 characters', () => {
    expect(() => validateConfig({ gateway: { tokens: [{ id: 'a', secret: 'x'.repeat(32) }] } }, 'x')).not.toThrow();
    expect(problemsOf({ gateway: { tokens: [{ id: 'a', secret: 'x'.repeat(31) }] } })).toHaveLength(1);
  });

  it('puts the source and every problem in the error message', () => {
    try {
      validateConfig({ gateway: { port: 70_000, tokens: [{ id: 'a', secret: 'short' }] } }, '/etc/gw.yaml');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const { message } = error as ConfigError;
      expect(message).toContain('Invalid configuration in /etc/gw.yaml');
      expect(message).toContain('gateway.port:');
      expect(message).toContain('gateway.tokens[0].secret: must be at least 32 characters');
    }
  });

  it('names unknown keys at the root and inside sections', () => {
    expect(problemsOf({ gatway: {} })).toEqual(['gatway: unknown key']);
    expect(problemsOf({ gateway: { prot: 1 } })).toEqual(['gateway.prot: unknown key']);
    expect(problemsOf({ gateway: { rateLimit: { max: 1 } } })).toEqual(['gateway.rateLimit.max: unknown key']);
    expect(problemsOf({ gateway: { tokens: [{ id: 'a', secret: SECRET, scope: ['rpc'] }] } })).toEqual([
      'gateway.tokens[0].scope: unknown key',
    ]);
  });

  it('stores in SQLite by default and takes a PostgreSQL url, naming a bad one', () => {
    expect(validateConfig({}, 'x').storage).toEqual({ kind: 'sqlite' });
    expect(validateConfig({ storage: { kind: 'postgres', url: 'postgres://app@db/gateway' } }, 'x').storage).toEqual({
      kind: 'postgres',
      url: 'postgres://app@db/gateway',
      maxConnections: 10,
      migrate: true,
    });
    expect(problemsOf({ storage: { kind: 'postgres', url: 'mysql://db/gateway' } })).toEqual([
      'storage.url: must be a postgres:// or postgresql:// URL',
    ]);
    expect(problemsOf({ storage: { kind: 'postgres' } })[0]).toMatch(/^storage\.url: /);
    expect(problemsOf({ storage: { kind: 'sqlite', url: 'postgres://db/x' } })).toEqual(['storage.url: unknown key']);
  });

  it('refuses an unknown scope name', () => {
    expect(problemsOf({ gateway: { tokens: [{ id: 'a', secret: SECRET, scopes: ['root'] }] } })[0]).toMatch(
      /^gateway\.tokens\[0\]\.scopes\[0\]: /,
    );
  });

  it("refuses a token id the gateway uses as the user part of its own keys (/v1's openai-api)", () => {
    expect(problemsOf({ gateway: { tokens: [{ id: 'openai-api', secret: SECRET }] } })).toEqual([
      'gateway.tokens[0].id: is a name the gateway uses in its own session keys; choose another',
    ]);
  });

  it('names the second of two tokens with the same id', () => {
    const problems = problemsOf({
      gateway: {
        tokens: [
          { id: 'twin', secret: SECRET },
          { id: 'twin', secret: `${SECRET}-2` },
        ],
      },
    });
    expect(problems).toEqual(["gateway.tokens[1].id: duplicate token id 'twin'"]);
  });

  it('names an agent whose provider is not configured', () => {
    const problems = problemsOf({
      providers: { local: { type: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1' } },
      agents: { default: { name: 'A', provider: 'remote', model: 'm' } },
    });
    expect(problems).toEqual(["agents.default.provider: unknown provider 'remote'"]);
  });

  it('accepts an agent whose provider is configured', () => {
    const config = validateConfig(
      {
        providers: { local: { type: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1' } },
        agents: { default: { name: 'A', provider: 'local', model: 'm' } },
      },
      'x',
    );
    expect(config.agents.default?.provider).toBe('local');
  });

  it('names an embeddings provider that is not configured', () => {
    expect(problemsOf({ embeddings: { provider: 'nope', model: 'e' } })).toEqual([
      "embeddings.provider: unknown provider 'nope'",
    ]);
  });

  it('refuses an anthropic embeddings provider, which has no embeddings endpoint', () => {
    expect(
      problemsOf({ providers: { claude: { type: 'anthropic' } }, embeddings: { provider: 'claude', model: 'e' } }),
    ).toEqual(["embeddings.provider: 'claude' is an anthropic provider, which has no embeddings endpoint"]);
  });

  it('refuses requireClientCert without a caPath', () => {
    const problems = problemsOf({
      gateway: { tls: { certPath: '/tmp/c.pem', keyPath: '/tmp/k.pem', requireClientCert: true } },
    });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^gateway\.tls\.requireClientCert: needs certPath, keyPath and caPath/);
  });

  it('refuses certPath without keyPath', () => {
    expect(problemsOf({ gateway: { tls: { certPath: '/tmp/c.pem' } } })).toEqual([
      'gateway.tls: certPath and keyPath must be set together',
    ]);
  });

  it('refuses out-of-range limits, naming each key', () => {
    const problems = problemsOf({
      gateway: { port: 65_536, httpBodyLimitBytes: 0, wsHeartbeatMs: -1, maxBatchSize: 1.5, wsMaxMessageBytes: 0 },
    });
    const keys = problems.map((problem) => problem.split(':')[0]);
    expect(keys.sort()).toEqual(
      [
        'gateway.httpBodyLimitBytes',
        'gateway.maxBatchSize',
        'gateway.port',
        'gateway.wsHeartbeatMs',
        'gateway.wsMaxMessageBytes',
      ].sort(),
    );
  });

  it('refuses a wrongly typed value, naming the key', () => {
    expect(problemsOf({ gateway: { web: { enabled: 'yes' } } })[0]).toMatch(/^gateway\.web\.enabled: /);
  });

  describe('time values (DESIGN §3 "time values in config")', () => {
    const TIMER_MAX = 2_147_483_647;

    /** Every property whose name ends in `Ms`, with its JSON-Schema path, found by walking the generated schema. */
    function msKeys(): { path: string; schema: Record<string, unknown> }[] {
      const found: { path: string; schema: Record<string, unknown> }[] = [];
      const pending: { path: string; node: unknown }[] = [
        { path: '', node: z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) },
      ];
      while (pending.length > 0) {
        const { path, node } = pending.pop() ?? { path: '', node: null };
        if (typeof node !== 'object' || node === null) continue;
        for (const [key, child] of Object.entries(node)) {
          if (key === 'properties' && typeof child === 'object' && child !== null) {
            for (const [name, property] of Object.entries(child)) {
              const childPath = path === '' ? name : `${path}.${name}`;
              if (name.endsWith('Ms') && typeof property === 'object' && property !== null)
                found.push({ path: childPath, schema: { ...property } });
              pending.push({ path: childPath, node: property });
            }
          } else {
            pending.push({
              path: key === 'additionalProperties' ? `${path}.<name>` : key === 'items' ? `${path}[]` : path,
              node: child,
            });
          }
        }
      }
      return found;
    }

    it('bounds every …Ms key, nested ones included, to an integer from 0 to 2147483647', () => {
      const keys = msKeys();
      expect(keys.map((key) => key.path)).toEqual(
        expect.arrayContaining([
          'gateway.rateLimit.windowMs',
          'gateway.wsHeartbeatMs',
          'gateway.wsMessageRateLimit.windowMs',
          'providers.<name>.timeoutMs',
        ]),
      );
      for (const { path, schema } of keys) {
        expect(schema.type, path).toBe('integer');
        expect(schema.maximum, path).toBe(TIMER_MAX);
        expect(schema.minimum, path).toBeGreaterThanOrEqual(0);
      }
    });

    it('refuses a time above 2^31-1 ms, naming the key, instead of letting Node turn it into 1 ms', () => {
      const problems = problemsOf({
        gateway: {
          wsHeartbeatMs: TIMER_MAX + 1,
          rateLimit: { windowMs: 3_000_000_000 },
          wsMessageRateLimit: { windowMs: 1e12 },
        },
        providers: { slow: { type: 'openai', apiKey: 'k', timeoutMs: TIMER_MAX + 1 } },
      });
      expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual(
        [
          'gateway.rateLimit.windowMs',
          'gateway.wsHeartbeatMs',
          'gateway.wsMessageRateLimit.windowMs',
          'providers.slow.timeoutMs',
        ].sort(),
      );
      expect(problems).toContain(
        `gateway.wsHeartbeatMs: must be at most ${TIMER_MAX} ms (the longest timer Node supports)`,
      );
    });

    it('accepts exactly 2147483647 ms', () => {
      const config = validateConfig(
        {
          gateway: { wsHeartbeatMs: TIMER_MAX },
          providers: { slow: { type: 'openai', apiKey: 'k', timeoutMs: TIMER_MAX } },
        },
        'x',
      );
      expect(config.gateway.wsHeartbeatMs).toBe(TIMER_MAX);
      expect(config.providers.slow?.timeoutMs).toBe(TIMER_MAX);
    });
  });
});
