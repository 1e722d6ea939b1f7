// Dashboard end to end: a session's terminal drives on its detail page — the drive listed with its agent and
// interactions, its output shown live and read-only (the agent's own read still gets it), and Close ending it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRpc } from '../../support/http-client.js';
import { shellAgent } from '../../terminal/e2e-support.js';
import { capture, openSignedIn, startDashboardWorld, type DashboardWorld } from './dashboard-fixture.js';

const SESSION = { tenantId: 'default', userId: 'ops', channelId: 'test', peerId: 'shell' };
const SESSION_KEY = 'default:ops:test:shell';

interface Drive {
  driveId: string;
  interactions: number;
}

describe('dashboard terminal drives', () => {
  let world: DashboardWorld;
  beforeAll(async () => {
    world = await startDashboardWorld({
      extraAgents: {
        coder: {
          name: 'Coder',
          provider: 'fake',
          model: 'fake-model',
          tools: ['terminal_open', 'terminal_send', 'terminal_read', 'terminal_close'],
        },
      },
      terminal: { enabled: true },
    });
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  const rpc = async <T = Record<string, unknown>>(method: string, params: unknown = {}): Promise<T> => {
    const response = await callRpc(world.gateway.url, world.gateway.tokens.admin, method, params);
    if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result as T;
  };
  const drives = async () => (await rpc<{ drives: Drive[] }>('terminal.list', { sessionKey: SESSION_KEY })).drives;

  it("lists the session's drive, shows its output live without consuming it, and closes it", async () => {
    world.llm.setDefaultReply(shellAgent({ commands: ['echo "seen-$((20 + 22))"\n'], until: 'seen-42' }));
    const first = await rpc<{ response: string }>('agent.execute', {
      agentId: 'coder',
      message: 'print the answer',
      sessionKey: SESSION,
    });
    expect(first.response).toContain('seen-42');
    const [drive] = await drives();
    expect(drive).toMatchObject({ interactions: 1 });
    const driveId = drive?.driveId ?? '-';

    const { page } = world.browser;
    await openSignedIn(world, `sessions?key=${encodeURIComponent(SESSION_KEY)}`);
    const section = page.getByRole('region', { name: 'Terminal drives' });
    const row = section.getByRole('row').filter({ hasText: driveId });
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    expect(await row.textContent()).toContain('coder');
    await row.getByRole('button', { name: 'View output' }).click();
    const output = section.getByLabel(`Output of ${driveId}`);
    await expect.poll(async () => (await output.textContent()) ?? '', { timeout: 10_000 }).toContain('seen-42');

    // The view polls: a command the agent types next shows up without a reload.
    world.llm.setDefaultReply(shellAgent({ commands: ['echo "later-$((50 + 8))"\n'], until: 'later-58' }));
    const second = await rpc<{ response: string }>('agent.execute', {
      agentId: 'coder',
      message: 'print another',
      sessionKey: SESSION,
    });
    // The operator's view never moved the agent's cursor: its own read got the new output.
    expect(second.response).toContain('later-58');
    await expect.poll(async () => (await output.textContent()) ?? '', { timeout: 10_000 }).toContain('later-58');
    await capture(world, 'terminal-drives');

    await row.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => section.getByText(`Closed ${driveId}.`).count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(drives, { timeout: 10_000 }).toEqual([]);
    expect(world.browser.problems).toEqual([]);
  });
});
