// Terminal drives and their gateway config: the reaper ends a drive left idle past idleMs and obs.explain names it
// terminal_drive_evicted with its reason, idleMs and wasProducing; with terminal.enabled false every tool refuses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { captureLogs } from '../support/log-capture.js';
import { listDrives, rootCause, sessionOf, shellAgent, trajectoryOf, turn } from './e2e-support.js';

const TERMINAL_TOOLS = ['terminal_open', 'terminal_send', 'terminal_read', 'terminal_close'];
const IDLE_MS = 400;

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
});
afterAll(async () => {
  await llm?.close();
});

const gatewayWith = (terminal: Record<string, unknown>, log?: ReturnType<typeof captureLogs>['log']) =>
  startGateway({
    ...(log === undefined ? {} : { log }),
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        models: [{ id: 'fake-model', contextWindow: 16_000, maxTokens: 512 }],
      },
    },
    agents: { default: { name: 'Coder', provider: 'fake', model: 'fake-model', tools: TERMINAL_TOOLS } },
    terminal,
  });

describe('the idle reaper', () => {
  let gw: Harness;
  beforeAll(async () => {
    gw = await gatewayWith({ enabled: true, idleMs: IDLE_MS });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('ends a drive left idle while it prints, and obs.explain names terminal_drive_evicted with its numbers', async () => {
    // A loop that keeps printing: the drive is producing output when the agent stops attending to it.
    llm.setDefaultReply(shellAgent({ commands: ['while true; do echo tick; sleep 0.1; done\n'], until: 'tick' }));
    await turn(gw, 'default', 'reaped', 'start a ticker');
    // The drive leaves the table, then its end is recorded once its shell has exited: wait for the verdict.
    await expect.poll(async () => listDrives(gw, { sessionKey: sessionOf('reaped') }), { timeout: 15_000 }).toEqual([]);
    await expect
      .poll(async () => (await rootCause(gw, 'reaped')).code, { timeout: 10_000 })
      .toBe('terminal_drive_evicted');
    const cause = await rootCause(gw, 'reaped');
    expect(cause.evidence).toMatchObject({ reason: 'idle', wasProducing: true });
    expect(Number(cause.evidence?.idleMs)).toBeGreaterThanOrEqual(IDLE_MS);
    const evicted = (await trajectoryOf(gw.paths.databasePath, 'reaped')).filter(
      (record) => record.kind === 'terminal_session_evicted',
    );
    expect(evicted).toHaveLength(1);
    expect(evicted[0]?.data).toMatchObject({ reason: 'idle', wasProducing: true });
  });
});

describe('terminal.enabled false', () => {
  let gw: Harness;
  beforeAll(async () => {
    gw = await gatewayWith({ enabled: false });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('refuses each terminal tool with a clear error and opens nothing', async () => {
    for (const [name, args] of [
      ['terminal_open', {}],
      ['terminal_send', { driveId: 'd', text: 'ls\n' }],
      ['terminal_read', { driveId: 'd' }],
      ['terminal_close', { driveId: 'd' }],
    ] as const) {
      llm.script({ toolCalls: [{ name, arguments: args }] });
      llm.setDefaultReply(shellAgent({ commands: [] }));
      const answer = await turn(gw, 'default', `off-${name}`, 'use the terminal');
      expect(answer.response).toMatch(/^Stopped: Error: .*terminal/i);
      expect(answer.response).toMatch(/enabled/);
    }
    expect(await listDrives(gw)).toEqual([]);
  });
});

describe('terminal.sandbox none', () => {
  it('is logged as a warning at start when drives are enabled, and not with the jail', async () => {
    const unjailed = captureLogs('info');
    const jailed = captureLogs('info');
    const gateways = [
      await gatewayWith({ enabled: true, sandbox: 'none' }, unjailed.log),
      await gatewayWith({ enabled: true }, jailed.log),
    ];
    try {
      const line = JSON.parse(await unjailed.waitFor('terminal.sandbox is none')) as { level: string };
      expect(line.level).toBe('warn');
      expect(jailed.lines.some((text) => text.includes('terminal.sandbox'))).toBe(false);
    } finally {
      await Promise.all(gateways.map((gateway) => gateway.close()));
    }
  });
});
