// The channels config: each connection names a configured agent and carries the secret its mode needs; its
// credentials read "***" in config.read and are secret references, its apiBaseUrl a URL reference.
import { describe, expect, it } from 'vitest';
import { ConfigError, redactConfig, validateConfig } from '../../../src/config/index.js';
import { referenceFieldAt } from '../../../src/config/reference-fields.js';

const agents = { helper: { name: 'Helper', provider: 'fake', model: 'm' } };
const providers = { fake: { type: 'openai-compatible', baseUrl: 'http://127.0.0.1:9', models: [{ id: 'm' }] } };

function problemsOf(channels: Record<string, unknown>): string {
  try {
    validateConfig({ providers, agents, channels }, 'test.yaml');
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.join('\n');
    throw error;
  }
  return '';
}

describe('channels config', () => {
  it('refuses an unknown agent and a mode without its secret, naming the key', () => {
    expect(problemsOf({ tg: { kind: 'telegram', agentId: 'nobody', token: 't' } })).toMatch(
      /channels\.tg\.agentId.*unknown agent 'nobody'/,
    );
    expect(problemsOf({ tg: { kind: 'telegram', agentId: 'helper', token: 't', mode: 'webhook' } })).toMatch(
      /channels\.tg\.webhookSecret.*required in webhook mode/,
    );
    expect(problemsOf({ sl: { kind: 'slack', agentId: 'helper', botToken: 'x' } })).toMatch(
      /channels\.sl\.signingSecret.*required in events mode/,
    );
    expect(problemsOf({ sl: { kind: 'slack', agentId: 'helper', botToken: 'x', mode: 'socket' } })).toMatch(
      /channels\.sl\.appToken.*required in socket mode/,
    );
    expect(problemsOf({ tg: { kind: 'telegram', agentId: 'helper', token: 't' } })).toBe('');
  });

  it('shows every channel credential as "***" and keeps the rest', () => {
    const mail = { host: 'mail.example', port: 993, user: 'bot', password: 'hunter2' };
    const config = validateConfig(
      {
        providers,
        agents,
        channels: {
          tg: { kind: 'telegram', agentId: 'helper', token: 'tg-token', mode: 'webhook', webhookSecret: 'hook' },
          sl: { kind: 'slack', agentId: 'helper', botToken: 'xoxb', signingSecret: 'sign', appToken: 'xapp' },
          em: { kind: 'email', agentId: 'helper', imap: mail, smtp: mail, from: 'bot@mail.example' },
        },
      },
      'test.yaml',
    );
    const shown = JSON.stringify(redactConfig(config).channels);
    for (const secret of ['tg-token', 'hook', 'xoxb', 'sign', 'xapp', 'hunter2'])
      expect(shown).not.toContain(`"${secret}"`);
    expect(redactConfig(config).channels.tg).toMatchObject({ token: '***', webhookSecret: '***', agentId: 'helper' });
    expect(redactConfig(config).channels.em).toMatchObject({ imap: { password: '***', user: 'bot' } });
  });

  it('takes secret references in the credential fields and URL references in apiBaseUrl', () => {
    expect(referenceFieldAt(['channels', 'tg', 'token'])?.kind).toBe('secret');
    expect(referenceFieldAt(['channels', 'em', 'smtp', 'password'])?.kind).toBe('secret');
    expect(referenceFieldAt(['channels', 'tg', 'apiBaseUrl'])?.kind).toBe('url');
    expect(referenceFieldAt(['channels', 'tg', 'agentId'])).toBeUndefined();
  });
});
