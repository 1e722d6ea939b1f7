// Terminal drives through a started gateway: the fake model drives the terminal_* tools against real bash in a real
// bubblewrap jail; an approval rule holds terminal_send; operators list, watch and close drives; obs.explain reads the
// drives' records (terminal_drive_opened_without_task, and no verdict for a max_sessions eviction); a stop is recorded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { listDrives, ok, rootCause, sessionOf, shellAgent, trajectoryOf, turn } from './e2e-support.js';

const TERMINAL_TOOLS = ['terminal_open', 'terminal_send', 'terminal_read', 'terminal_close'];

let llm: FakeLlm;
let gw: Harness;
beforeAll(async () => {
  llm = await startFakeLlm({ models: ['fake-model'] });
  const agent = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    provider: 'fake',
    model: 'fake-model',
    tools: TERMINAL_TOOLS,
    ...extra,
  });
  gw = await startGateway({
    providers: {
      fake: {
        type: 'openai-compatible',
        baseUrl: llm.baseUrl,
        models: [{ id: 'fake-model', contextWindow: 16_000, maxTokens: 512 }],
      },
    },
    agents: {
      default: agent('Coder'),
      gated: agent('Gated', { requireApproval: ['terminal_send'] }),
      idler: agent('Idler'),
      solo: agent('Solo'),
    },
    // One drive per agent: a second open in one agent evicts its first (max_sessions).
    terminal: { enabled: true, maxSessionsPerAgent: 1 },
  });
});
afterAll(async () => {
  await gw?.close();
  await llm?.close();
});

interface Pending {
  id: string;
  toolName: string;
  args: { driveId?: string; text?: string };
}

const pending = async () =>
  ((await ok(gw, gw.tokens.admin, 'admin.approval.pending', {})) as { requests: Pending[] }).requests;

describe('terminal tools in real turns', () => {
  it('runs a command in a jailed shell and reads its output back, in one turn and the next', async () => {
    llm.setDefaultReply(shellAgent({ commands: ['echo "sum=$((6 * 7))"\n'], until: 'sum=42' }));
    const first = await turn(gw, 'default', 'echo', 'compute 6*7 in the shell');
    expect(first).toMatchObject({ finishReason: 'stop' });
    expect(first.response).toContain('sum=42');
    // The drive outlives the turn: the next turn of the session types into the same shell.
    const [drive] = await listDrives(gw, { sessionKey: sessionOf('echo') });
    expect(drive).toMatchObject({ agentId: 'default', state: 'open', interactions: 1 });

    llm.setDefaultReply(shellAgent({ commands: ['echo "home=$HOME pwd=$(pwd)"\n'], until: 'pwd=' }));
    const second = await turn(gw, 'default', 'echo', 'where am I?');
    // The jail shows the agent's workspace at /workspace, its cwd and HOME; nothing of the gateway's paths.
    expect(second.response).toContain('home=/workspace pwd=/workspace');
    expect((await listDrives(gw, { sessionKey: sessionOf('echo') }))[0]).toMatchObject({
      driveId: drive?.driveId,
      interactions: 2,
    });
    // Text was sent: no opened-without-task verdict for this session.
    expect((await rootCause(gw, 'echo')).code).not.toBe('terminal_drive_opened_without_task');
  });

  it('holds terminal_send for an approval rule until an operator approves, then the command runs', async () => {
    llm.setDefaultReply(shellAgent({ commands: ['echo approved-$((40 + 2))\n'], until: 'approved-42' }));
    const answer = turn(gw, 'gated', 'approve', 'say approved');
    await expect.poll(async () => (await pending()).length, { timeout: 10_000 }).toBe(1);
    const [request] = await pending();
    expect(request).toMatchObject({ toolName: 'terminal_send', args: { text: 'echo approved-$((40 + 2))\n' } });
    // While it waits, nothing was typed into the drive.
    const [drive] = await listDrives(gw, { sessionKey: sessionOf('approve') });
    expect(drive).toMatchObject({ agentId: 'gated', interactions: 0 });
    await ok(gw, gw.tokens.admin, 'admin.approval.resolve', { id: request?.id, approved: true });
    expect((await answer).response).toContain('approved-42');
  });

  it('a denied terminal_send never reaches the shell', async () => {
    llm.setDefaultReply(shellAgent({ commands: ['echo denied-$((40 + 2)) > denied.txt\n'] }));
    const answer = turn(gw, 'gated', 'deny', 'write a file');
    await expect.poll(async () => (await pending()).length, { timeout: 10_000 }).toBe(1);
    const [request] = await pending();
    await ok(gw, gw.tokens.admin, 'admin.approval.resolve', { id: request?.id, approved: false });
    expect((await answer).response).toMatch(/^Stopped: Error: terminal_send was denied/);
    const [drive] = await listDrives(gw, { sessionKey: sessionOf('deny') });
    expect(drive).toMatchObject({ interactions: 0 });
    const watched = (await ok(gw, gw.tokens.admin, 'terminal.read', { driveId: drive?.driveId })) as {
      output: string;
    };
    expect(watched.output).not.toContain('denied-');
  });

  it('obs.explain: a drive opened and kept with no text sent is terminal_drive_opened_without_task', async () => {
    llm.setDefaultReply(shellAgent({ commands: [] }));
    await turn(gw, 'idler', 'idle-open', 'open a terminal');
    const cause = await rootCause(gw, 'idle-open');
    expect(cause.code).toBe('terminal_drive_opened_without_task');
    const [drive] = await listDrives(gw, { sessionKey: sessionOf('idle-open') });
    const promoted = (await trajectoryOf(gw.paths.databasePath, 'idle-open')).filter(
      (record) => record.kind === 'terminal_drive_promoted',
    );
    expect(promoted.map((record) => record.data)).toEqual([
      { driveId: drive?.driveId, agentId: 'idler', successes: 1 },
    ]);
  });

  it('a max_sessions eviction is recorded but is no terminal_drive_evicted verdict', async () => {
    llm.setDefaultReply(shellAgent({ commands: ['echo first\n'], until: 'first' }));
    await turn(gw, 'solo', 'solo-a', 'first drive');
    const [first] = await listDrives(gw, { agentId: 'solo' });
    // A second session of the same agent opens a drive: the cap of one per agent ends the first.
    llm.setDefaultReply(shellAgent({ commands: ['echo second\n'], until: 'second' }));
    await turn(gw, 'solo', 'solo-b', 'second drive');
    const drives = await listDrives(gw, { agentId: 'solo' });
    expect(drives).toHaveLength(1);
    expect(drives[0]?.driveId).not.toBe(first?.driveId);

    expect((await rootCause(gw, 'solo-a')).code).not.toBe('terminal_drive_evicted');
    const evicted = (await trajectoryOf(gw.paths.databasePath, 'solo-a')).filter(
      (record) => record.kind === 'terminal_session_evicted',
    );
    expect(evicted.map((record) => record.data)).toEqual([
      {
        driveId: first?.driveId,
        reason: 'max_sessions',
        idleMs: expect.any(Number),
        wasProducing: expect.any(Boolean),
      },
    ]);
  });
});

describe('terminal.* methods', () => {
  it('lists, watches without consuming the agent cursor, and closes a drive as an operator', async () => {
    llm.setDefaultReply(shellAgent({ commands: ['echo watched-$((1 + 1))\n'] }));
    await turn(gw, 'default', 'watch', 'type something');
    const [drive] = await listDrives(gw, { sessionKey: sessionOf('watch') });
    expect(drive).toMatchObject({ agentId: 'default', sessionKey: sessionOf('watch'), interactions: 1 });
    expect(drive?.ageMs).toBeGreaterThanOrEqual(0);
    const driveId = drive?.driveId;

    // The operator watches until the command's output shows.
    await expect
      .poll(async () => ((await ok(gw, gw.tokens.admin, 'terminal.read', { driveId })) as { output: string }).output, {
        timeout: 10_000,
      })
      .toContain('watched-2');
    // The agent's own read still gets that output: the operator's reads did not move its cursor.
    llm.setDefaultReply(shellAgent({ commands: [], until: 'watched-2' }));
    expect((await turn(gw, 'default', 'watch', 'read it')).response).toContain('watched-2');

    expect(await ok(gw, gw.tokens.admin, 'terminal.close', { driveId })).toEqual({ driveId, closed: true });
    expect(await listDrives(gw, { sessionKey: sessionOf('watch') })).toEqual([]);
    const closed = (await trajectoryOf(gw.paths.databasePath, 'watch')).filter(
      (record) => record.kind === 'terminal_drive_closed',
    );
    // Written after the close: explain flushes the recorder before the file is read.
    await rootCause(gw, 'watch');
    const flushed = (await trajectoryOf(gw.paths.databasePath, 'watch')).filter(
      (record) => record.kind === 'terminal_drive_closed',
    );
    expect([...closed, ...flushed].at(-1)?.data).toMatchObject({ driveId, reason: 'operator', interactions: 1 });
  });

  it('refuses terminal.* to a token without the admin scope; an unknown drive is not found', async () => {
    for (const [method, params] of [
      ['terminal.list', {}],
      ['terminal.read', { driveId: 'x' }],
      ['terminal.close', { driveId: 'x' }],
    ] as const) {
      const { error } = await callRpc(gw.url, gw.tokens.rpc, method, params);
      expect(error).toMatchObject({ code: -32603, message: "Insufficient scope: requires 'admin'" });
    }
    const { error } = await callRpc(gw.url, gw.tokens.admin, 'terminal.read', { driveId: 'no-such-drive' });
    expect(error).toMatchObject({ code: -32603, data: { kind: 'not_found' } });
  });

  it('another session naming a drive it does not own gets not found, and the drive is untouched', async () => {
    // The drive the idler agent's session opened (and left without text) above.
    const [drive] = await listDrives(gw, { sessionKey: sessionOf('idle-open') });
    const driveId = drive?.driveId ?? '';
    expect(driveId).not.toBe('');
    llm.script({ toolCalls: [{ name: 'terminal_send', arguments: { driveId, text: 'echo stolen\n' } }] });
    llm.setDefaultReply(shellAgent({ commands: [] }));
    const answer = await turn(gw, 'default', 'thief', 'type into the other drive');
    expect(answer.response).toMatch(/^Stopped: Error: .*not found/i);
    expect((await listDrives(gw, { sessionKey: sessionOf('idle-open') }))[0]).toMatchObject({
      driveId,
      interactions: 0,
    });
  });
});

describe('stopping the gateway', () => {
  it('ends every drive and records each end with reason shutdown', async () => {
    llm.setDefaultReply(shellAgent({ commands: ['echo before-stop\n'], until: 'before-stop' }));
    await turn(gw, 'default', 'stop', 'start work');
    const [drive] = await listDrives(gw, { sessionKey: sessionOf('stop') });
    await gw.app.close();
    const closed = (await trajectoryOf(gw.paths.databasePath, 'stop')).filter(
      (record) => record.kind === 'terminal_drive_closed',
    );
    expect(closed.map((record) => record.data)).toEqual([
      { driveId: drive?.driveId, reason: 'shutdown', interactions: 1, durationMs: expect.any(Number) },
    ]);
  });
});
