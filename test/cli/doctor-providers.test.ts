// doctor's provider check: a real round trip per provider against the fake LLM server, and a dead one.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChecks } from '../../src/cli/doctor.js';
import { resolvePaths } from '../../src/config/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';

describe('doctor provider probe', () => {
  let llm: FakeLlm;
  let home: string;
  beforeAll(async () => {
    llm = await startFakeLlm();
    home = await mkdtemp(join(tmpdir(), 'agent-gateway-doctor-providers-'));
  });
  afterAll(async () => {
    await llm.close();
    await rm(home, { recursive: true, force: true });
  });

  it('reports ok for a provider that answers and fail for one that does not', async () => {
    await writeFile(
      join(home, 'config.yaml'),
      [
        'gateway: { port: 0 }',
        'providers:',
        `  good: { type: openai-compatible, baseUrl: "${llm.baseUrl}", models: [{ id: fake-model }] }`,
        '  dead: { type: openai-compatible, baseUrl: "http://127.0.0.1:9/v1", models: [{ id: nothing }] }',
      ].join('\n'),
    );
    const results = await runChecks(resolvePaths({ dataDir: home }, {}), {});
    expect(results.find((result) => result.name === 'provider good')).toMatchObject({ status: 'ok' });
    expect(results.find((result) => result.name === 'provider dead')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('dead/nothing'),
    });
    expect(llm.chatRequests()).toHaveLength(1);
  });
});
