// Redaction of token secrets, API keys and the webhook secret before a config is shown or logged.
import { describe, expect, it } from 'vitest';
import { REDACTED, redactConfig, redactSecrets, validateConfig } from '../../src/config/index.js';

const SECRET = 'a-secret-that-is-long-enough-0123456789';

describe('config redaction', () => {
  const config = validateConfig(
    {
      gateway: {
        tokens: [
          { id: 'admin', secret: SECRET, scopes: ['*'] },
          { id: 'bot', secret: `${SECRET}-bot`, scopes: ['rpc'] },
        ],
        webhook: { secret: 'webhook-secret-0123456789' },
      },
      providers: { openai: { type: 'openai', apiKey: 'sk-live-key' } },
    },
    'x',
  );

  it('masks the password of a storage url and leaves the rest of it readable', () => {
    const withStorage = validateConfig(
      { storage: { kind: 'postgres', url: 'postgres://app:s3cret@db.internal:5432/gateway' } },
      'x',
    );
    expect(redactSecrets(withStorage).storage).toEqual({
      kind: 'postgres',
      url: 'postgres://app:***@db.internal:5432/gateway',
      maxConnections: 10,
      migrate: true,
    });
    expect(JSON.stringify(redactConfig(withStorage))).not.toContain('s3cret');
    const passwordless = validateConfig({ storage: { kind: 'postgres', url: 'postgres://app@db/gateway' } }, 'x');
    expect(redactSecrets(passwordless).storage).toMatchObject({ url: 'postgres://app@db/gateway' });
  });

  it('replaces every token secret, API key and the webhook secret with "***"', () => {
    const redacted = redactConfig(config);
    expect(REDACTED).toBe('***');
    expect(redacted.gateway.tokens.map((token) => token.secret)).toEqual(['***', '***']);
    expect(redacted.gateway.webhook?.secret).toBe('***');
    expect(redacted.providers.openai?.apiKey).toBe('***');
    const text = JSON.stringify(redacted);
    for (const secret of [SECRET, 'webhook-secret-0123456789', 'sk-live-key']) expect(text).not.toContain(secret);
  });

  it('keeps everything else, and leaves the original untouched', () => {
    const redacted = redactConfig(config);
    expect(redacted.gateway.tokens.map((token) => [token.id, token.scopes])).toEqual([
      ['admin', ['*']],
      ['bot', ['rpc']],
    ]);
    expect(redacted.gateway.port).toBe(config.gateway.port);
    expect(config.gateway.tokens[0]?.secret).toBe(SECRET);
    expect(config.providers.openai?.apiKey).toBe('sk-live-key');
  });

  it('redacts secret-bearing keys at any depth of any value', () => {
    expect(redactSecrets({ a: [{ b: { secret: 'x', apiKey: 'y', other: 'z' } }] })).toEqual({
      a: [{ b: { secret: '***', apiKey: '***', other: 'z' } }],
    });
  });
});
