// config.patch over a started gateway: the sections it does not change stay byte-identical in config.yaml, and the
// commit names the token that asked and the sections changed.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGateway, TOKEN_IDS, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

describe('config edits keep the file as written', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startGateway({ gateway: { cors: { origins: ['https://dashboard.example'] } } });
    // The history repository is made after start; an edit before it would be folded into its first commit.
    await vi.waitFor(
      async () => {
        const { result } = await callRpc(harness.url, harness.tokens.admin, 'config.history', {});
        expect((result as { entries: unknown[] }).entries).toHaveLength(1);
      },
      { timeout: 5_000, interval: 50 },
    );
  });
  afterAll(async () => {
    await harness.close();
  });

  it('changes only the patched section and names the actor and sections in the commit', async () => {
    const before = await readFile(harness.paths.configPath, 'utf8');
    const patched = await callRpc(harness.url, harness.tokens.admin, 'config.patch', { obs: { retentionDays: 7 } });
    expect(patched.result).toMatchObject({ ok: true, sections: ['obs'] });
    const after = await readFile(harness.paths.configPath, 'utf8');
    expect(after).toBe(`${before}obs:\n  retentionDays: 7\n`);
    const { result } = await callRpc(harness.url, harness.tokens.admin, 'config.history', {});
    expect((result as { entries: { message: string }[] }).entries[0]?.message).toBe(
      `config.patch by ${TOKEN_IDS.admin}: obs`,
    );
  });
});
