// The reaper and the caps on real drives: idle, wall_clock, max_sessions per agent and overall, max_interactions, ownership.
import { afterEach, describe, expect, it } from 'vitest';
import { isGatewayError } from '../../src/errors.js';
import { driveTable, readUntil, type DriveTable } from './terminal-support.js';

const open = (table: DriveTable, agentId: string, sessionKey = `agent:${agentId}:main`) =>
  table.drives.open({ agentId, sessionKey, ownerId: 'owner-1' });

describe('terminal drives: the reaper and the caps', () => {
  let table: DriveTable | undefined;
  afterEach(async () => {
    await table?.dispose();
    table = undefined;
  });

  it('ends a drive nobody sent to nor read from for idleMs (reason idle, with idleMs and wasProducing)', async () => {
    table = await driveTable({ idleMs: 300 });
    const drive = await open(table, 'a');
    await readUntil(table.drives, drive.driveId, 'agent:a:main', /# $/);
    const { info, end } = await table.ended(drive.driveId);
    expect(end.reason).toBe('idle');
    expect(end.idleMs).toBeGreaterThanOrEqual(300);
    // The prompt printed moments before: the shell was producing within the window.
    expect(end.wasProducing).toBe(true);
    expect(info.driveId).toBe(drive.driveId);
    expect(table.drives.get(drive.driveId)).toBeUndefined();
    expect(() => table?.drives.send(drive.driveId, 'echo\n', 'agent:a:main')).toThrow(/not found/);
  });

  it('ends a drive older than wallClockMs however busy (reason wall_clock)', async () => {
    table = await driveTable({ wallClockMs: 400 });
    const drive = await open(table, 'a');
    const ended = table.ended(drive.driveId);
    table.drives.send(drive.driveId, 'while :; do echo tick; sleep 0.05; done\n', 'agent:a:main');
    const { end } = await ended;
    expect(end.reason).toBe('wall_clock');
    expect(end.wasProducing).toBe(true);
  });

  it("opening past maxSessionsPerAgent ends that agent's least recently used drive (reason max_sessions)", async () => {
    table = await driveTable({ maxSessionsPerAgent: 2, maxSessions: 10 });
    const first = await open(table, 'a');
    const second = await open(table, 'a');
    const other = await open(table, 'b');
    table.drives.send(first.driveId, 'echo used\n', 'agent:a:main');
    const third = await open(table, 'a');
    const { end } = await table.ended(second.driveId);
    expect(end.reason).toBe('max_sessions');
    expect(
      table.drives
        .list()
        .map((info) => info.driveId)
        .sort(),
    ).toEqual([first.driveId, other.driveId, third.driveId].sort());
  });

  it('opening past maxSessions ends the least recently used drive of any agent (reason max_sessions)', async () => {
    table = await driveTable({ maxSessionsPerAgent: 2, maxSessions: 2 });
    const a = await open(table, 'a');
    const b = await open(table, 'b');
    table.drives.send(a.driveId, 'echo used\n', 'agent:a:main');
    const c = await open(table, 'c');
    const { end } = await table.ended(b.driveId);
    expect(end.reason).toBe('max_sessions');
    expect(table.drives.list().map((info) => info.driveId)).toEqual([a.driveId, c.driveId]);
  });

  it('the send past maxInteractions ends the drive (reason max_interactions) and fails saying so', async () => {
    table = await driveTable({ maxInteractions: 2 });
    const drive = await open(table, 'a');
    table.drives.send(drive.driveId, 'echo one\n', 'agent:a:main');
    table.drives.send(drive.driveId, 'echo two\n', 'agent:a:main');
    let refusal: unknown;
    try {
      table.drives.send(drive.driveId, 'echo three\n', 'agent:a:main');
    } catch (error) {
      refusal = error;
    }
    expect(isGatewayError(refusal) && refusal.kind).toBe('conflict');
    expect(String(refusal)).toContain('terminal.maxInteractions');
    const { info, end } = await table.ended(drive.driveId);
    expect(end.reason).toBe('max_interactions');
    expect(info.interactions).toBe(2);
  });

  it('refuses text over maxSendChars, naming the cap, and types nothing', async () => {
    table = await driveTable({ maxSendChars: 10 });
    const drive = await open(table, 'a');
    let refusal: unknown;
    try {
      table.drives.send(drive.driveId, 'echo 12345678\n', 'agent:a:main');
    } catch (error) {
      refusal = error;
    }
    expect(isGatewayError(refusal) && refusal.kind).toBe('invalid_params');
    expect(String(refusal)).toContain('maxSendChars');
    expect(table.drives.get(drive.driveId)?.interactions).toBe(0);
  });

  it("answers another session's drive id as not found, for send, read and close", async () => {
    table = await driveTable();
    const drive = await open(table, 'a', 'agent:a:alice');
    const notFound = (error: unknown) => isGatewayError(error) && error.kind === 'not_found';
    expect(() => table?.drives.send(drive.driveId, 'echo\n', 'agent:a:mallory')).toThrow(/not found/);
    expect(notFound(await table.drives.read(drive.driveId, {}, 'agent:a:mallory').catch((e: unknown) => e))).toBe(true);
    expect(
      notFound(await table.drives.close(drive.driveId, 'closed', 'agent:a:mallory').catch((e: unknown) => e)),
    ).toBe(true);
    expect(table.drives.get(drive.driveId)?.state).toBe('open');
  });

  it('drops the oldest output past outputBufferChars, with a marker and dropped: true', async () => {
    table = await driveTable({ outputBufferChars: 1_024 });
    const drive = await open(table, 'a');
    table.drives.send(drive.driveId, "head -c 5000 /dev/zero | tr '\\0' a; echo; exit 0\n", 'agent:a:main');
    const reads = [];
    for (;;) {
      const output = await table.drives.read(drive.driveId, { waitMs: 2_000 }, 'agent:a:main');
      reads.push(output);
      if (output.state === 'exited') break;
    }
    const dropping = reads.find((output) => output.dropped);
    expect(dropping?.text).toMatch(/^\[… \d+ characters of earlier output dropped …\]\n/);
    expect(reads.map((output) => output.text).join('')).toMatch(/a{500}/);
    expect(table.drives.peek(drive.driveId).dropped).toBe(true);
  });

  it('closeAll ends every drive once with reason shutdown', async () => {
    table = await driveTable();
    const a = await open(table, 'a');
    const b = await open(table, 'b');
    await table.drives.close(a.driveId, 'operator');
    await table.drives.closeAll('shutdown');
    expect(table.ends.map(({ info, end }) => [info.driveId, end.reason])).toEqual([
      [a.driveId, 'operator'],
      [b.driveId, 'shutdown'],
    ]);
    expect(table.drives.list()).toEqual([]);
  });

  it('ends drives closed the moment they opened (the kill may land before the child is a process group)', async () => {
    table = await driveTable();
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const drive = await open(table, 'a');
      table.drives.send(drive.driveId, 'echo hi\n', 'agent:a:main');
      const closed = await table.drives.close(drive.driveId, 'closed');
      expect(closed.state).toBe('exited');
    }
    expect(table.ends).toHaveLength(20);
  });
});
