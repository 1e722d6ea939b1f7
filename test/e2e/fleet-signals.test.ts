// End to end: the fleet report's posture and recurring-signal findings fire from what a running gateway records
// (boot posture, breaker trips), and a restart that finds an unfinished run records it and reports it orphaned.
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { resolvePaths } from '../../src/config/index.js';
import type { IncidentReport } from '../../src/obs/explain/index.js';
import type { FleetHealthReport } from '../../src/obs/fleet/index.js';
import { createLogger } from '../../src/obs/logger.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness, type HarnessOptions } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function rpc(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const response = await callRpc(url, token, method, params);
  if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
  return response.result as Record<string, unknown>;
}

async function gateway(llm: FakeLlm, options: Partial<HarnessOptions> = {}, contextWindow = 32_768): Promise<Harness> {
  const harness = await startGateway({
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        models: [{ id: 'fake-model', contextWindow, maxTokens: 512 }],
      },
    },
    agents: { default: { name: 'Assistant', provider: 'fake', model: 'fake-model' } },
    ...options,
  });
  cleanups.push(() => harness.close());
  return harness;
}

const fleetHealth = async (harness: Harness) =>
  (await rpc(harness.url, harness.tokens.admin, 'obs.fleet.health')) as unknown as FleetHealthReport;
const findingCodes = (report: FleetHealthReport) => report.findings.map((finding) => finding.code);

describe('fleet findings from real traffic', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    // The server serves fake-model with a 4096-token window (vLLM reports it as max_model_len).
    llm = await startFakeLlm({ models: ['fake-model'], modelFields: { 'fake-model': { max_model_len: 4096 } } });
  });
  afterAll(async () => {
    await llm.close();
  });
  afterEach(() => llm.reset());

  it('records the boot posture after listen, so a server serving less than the configured window is a finding', async () => {
    const harness = await gateway(llm);
    await expect
      .poll(async () => findingCodes(await fleetHealth(harness)), { timeout: 5000 })
      .toContain('config_posture:served_below_configured');
    const report = await fleetHealth(harness);
    expect(report.findings.find((finding) => finding.code === 'config_posture:served_below_configured')).toMatchObject({
      count: 1,
      detail: expect.stringContaining('fake'),
    });
    expect(report.likelyRootCause.code).toBe('fleet_config_posture');
    expect(llm.requests.some((request) => request.endpoint === 'models')).toBe(true);
  });

  it('records no posture finding when the configured window fits what is served, or when the server does not say', async () => {
    const fits = await gateway(llm, {}, 4096);
    const quiet = await startFakeLlm({ models: ['fake-model'] });
    cleanups.push(() => quiet.close());
    const unknown = await gateway(quiet);
    for (const harness of [fits, unknown]) {
      await expect.poll(async () => (await postureRows(harness)).length, { timeout: 5000 }).toBe(1);
      expect(findingCodes(await fleetHealth(harness))).not.toContain('config_posture:served_below_configured');
    }
    expect((await postureRows(unknown))[0]).toMatchObject({
      providers: [
        { provider: 'fake', model: 'fake-model', configuredWindowTokens: 32_768, servedWindowTokens: 'unknown' },
      ],
    });
  });

  it('turns repeated breaker trips into fleet_recurring_health_signal', async () => {
    const clock = { now: Date.now() };
    const harness = await gateway(llm, { app: { now: () => clock.now } });
    const execute = (peerId: string) =>
      rpc(harness.url, harness.tokens.admin, 'agent.execute', {
        message: 'hi',
        sessionKey: { tenantId: 'default', userId: 'ops', channelId: 'test', peerId },
      });
    for (let trip = 1; trip <= 3; trip += 1) {
      // Three consecutive failures open the breaker; after its 30 s cooldown a good probe closes it again.
      for (let failure = 0; failure < 3; failure += 1) {
        llm.script({ status: 500 });
        expect(await execute(`trip-${trip}-${failure}`)).toMatchObject({ finishReason: 'error' });
      }
      clock.now += 31_000;
      llm.script({ text: 'recovered' });
      expect(await execute(`probe-${trip}`)).toMatchObject({ finishReason: 'stop' });
    }
    const report = await fleetHealth(harness);
    expect(report.findings).toContainEqual(
      expect.objectContaining({
        code: 'fleet_recurring_health_signal',
        count: 3,
        detail: expect.stringContaining('provider_breaker_opened:fake'),
      }),
    );
  });
});

async function postureRows(harness: Harness): Promise<Record<string, unknown>[]> {
  await harness.app.observability.flush();
  const db = new Database(harness.paths.databasePath, { readonly: true });
  try {
    const rows = db.prepare("SELECT data FROM health_signals WHERE kind = 'config_posture' ORDER BY id").all() as {
      data: string;
    }[];
    return rows.map((row) => JSON.parse(row.data) as Record<string, unknown>);
  } finally {
    db.close();
  }
}

describe('a restart that finds an unfinished run', () => {
  it('records the orphan signal, and obs.explain and obs.fleet.health both report the run degraded as orphaned', async () => {
    const llm = await startFakeLlm({ models: ['fake-model'] });
    cleanups.push(() => llm.close());
    const first = await gateway(llm);
    // The sub-agent's model call hangs, so its turn has started and not ended when the process "dies" below.
    llm.script({ text: 'never arrives', delayMs: 60_000 });
    const { runId } = (await rpc(first.url, first.tokens.admin, 'session.spawn', {
      parentKey: 'default:ops:test:parent',
      task: 'long job',
    })) as { runId: string };
    await expect
      .poll(
        async () =>
          ((await rpc(first.url, first.tokens.admin, 'obs.explain', { rootRunId: runId })) as unknown as IncidentReport)
            .outcome?.endReason,
      )
      .toBe('in_progress');

    // A crash: the data dir as it is on disk right now, copied while the first process keeps running.
    const crashedDir = await mkdtemp(join(tmpdir(), 'agent-gateway-crashed-'));
    cleanups.push(() => rm(crashedDir, { recursive: true, force: true }));
    const source = new Database(first.paths.databasePath, { readonly: true });
    await source.backup(join(crashedDir, 'gateway.db'));
    source.close();
    const restarted = await createApp({
      config: first.config,
      paths: resolvePaths({ dataDir: crashedDir }, {}),
      log: createLogger({ level: 'silent' }),
      version: 'test',
      defaultWebDistPath: null,
    });
    cleanups.push(() => restarted.close());
    const { url } = await restarted.listen();
    const admin = first.tokens.admin;

    const report = (await rpc(url, admin, 'obs.explain', { rootRunId: runId })) as unknown as IncidentReport;
    expect(report.outcome).toEqual({ endReason: 'orphaned', degraded: true, severity: 'error' });
    const fleet = (await rpc(url, admin, 'obs.fleet.health')) as unknown as FleetHealthReport;
    expect(fleet.sessions).toMatchObject({ degraded: 1 });
    expect(fleet.degradedByCause).toEqual({ orphaned: 1 });
    expect(fleet.autonomy).toMatchObject({ orphaned: 1, runs: { degraded: 1 } });

    const db = new Database(join(crashedDir, 'gateway.db'), { readonly: true });
    try {
      const signals = db.prepare("SELECT severity, data FROM health_signals WHERE kind = 'health'").all();
      expect(signals).toEqual([
        { severity: 'warning', data: JSON.stringify({ code: 'runs_orphaned_on_restart', count: 1 }) },
      ]);
    } finally {
      db.close();
    }
  });
});
