// The test harness itself: the tokens it promises, config overrides, config.yaml on disk and cleanup.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseConfigText, readSecrets } from '../../src/config/index.js';
import { startGateway, TOKEN_IDS, TOKENS, type TokenName } from './gateway-harness.js';

describe('gateway harness', () => {
  it('configures one token per scope, each with a secret of at least 32 characters', async () => {
    const gateway = await startGateway({ listen: false });
    try {
      const expected: Record<TokenName, string[]> = {
        admin: ['*'],
        rpc: ['rpc'],
        adminOnly: ['admin'],
        mcpClient: ['mcp-client'],
        api: ['api'],
        ws: ['ws'],
      };
      for (const [name, scopes] of Object.entries(expected) as [TokenName, string[]][]) {
        expect(TOKENS[name].length).toBeGreaterThanOrEqual(32);
        expect(gateway.config.gateway.tokens.find((token) => token.secret === TOKENS[name])).toEqual({
          id: TOKEN_IDS[name],
          secret: TOKENS[name],
          scopes,
        });
      }
      expect(gateway.url).toBe('');
    } finally {
      await gateway.close();
    }
  });

  it('listens on an ephemeral loopback port, writes the config to config.yaml and removes the data dir on close', async () => {
    const gateway = await startGateway({
      gateway: { maxBatchSize: 7 },
      extraTokens: [{ id: 'extra', secret: 'extra-secret-0123456789abcdefghijklmnop' }],
    });
    let closed = false;
    try {
      expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(gateway.url).not.toMatch(/:4766$/);
      expect(gateway.wsUrl).toBe(`${gateway.url.replace('http', 'ws')}/ws`);
      expect(gateway.config.gateway.maxBatchSize).toBe(7);
      expect(gateway.config.gateway.tokens.map((token) => token.id)).toContain('extra');
      const onDisk = parseConfigText(
        await readFile(gateway.paths.configPath, 'utf8'),
        'config.yaml',
        {},
        await readSecrets(gateway.paths.secretsPath),
      ).config;
      expect(onDisk).toEqual(gateway.config);
      await gateway.close();
      closed = true;
      expect(existsSync(gateway.dataDir)).toBe(false);
      expect(gateway.app.state()).toBe('closed');
    } finally {
      if (!closed) await gateway.close();
    }
  });
});
