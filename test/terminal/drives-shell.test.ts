// A real shell in the jail through the drive table: echo, a build in the workspace, a prompt answered, Ctrl-C, exits and peeks.
import { chmod, mkdir, readFile, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isGatewayError } from '../../src/errors.js';
import { driveTable, readUntil, run, type DriveTable } from './terminal-support.js';

const session = 'agent:coder:main';
const open = (table: DriveTable, cwd?: string) =>
  table.drives.open({
    agentId: 'coder',
    sessionKey: session,
    ownerId: 'owner-1',
    ...(cwd === undefined ? {} : { cwd }),
  });

describe('terminal drives: a real shell', () => {
  let table: DriveTable;
  beforeEach(async () => {
    table = await driveTable();
  });
  afterEach(async () => {
    await table.dispose();
  });

  it('runs echo and returns its output with the ANSI escapes and CRs stripped', async () => {
    const drive = await open(table);
    expect(drive).toMatchObject({ agentId: 'coder', sessionKey: session, ownerId: 'owner-1', state: 'open' });
    expect(drive.cwd).toBe('/workspace');
    const { output, status } = await run(
      table.drives,
      drive.driveId,
      session,
      `printf '\\033[31mred\\033[0m\\r\\n'; echo hello`,
    );
    expect(status).toBe(0);
    expect(output).toBe('red\nhello\n');
    expect(table.drives.get(drive.driveId)?.interactions).toBe(1);
  });

  it('builds in the workspace in steps, and the host reads the result', async () => {
    const drive = await open(table);
    const steps = [
      `mkdir -p src && printf 'hello from the jail\\n' > src/input.txt`,
      `printf 'tr a-z A-Z < src/input.txt > out.txt\\n' > build.sh`,
      'sh build.sh',
    ];
    for (const step of steps) expect((await run(table.drives, drive.driveId, session, step)).status).toBe(0);
    const built = await readFile(join(table.workspaceRoot, 'coder', 'out.txt'), 'utf8');
    expect(built).toBe('HELLO FROM THE JAIL\n');
    expect((await run(table.drives, drive.driveId, session, 'cat out.txt')).output).toBe('HELLO FROM THE JAIL\n');
  });

  it('answers an interactive prompt with a later send', async () => {
    const drive = await open(table);
    table.drives.send(drive.driveId, "read -p 'Name? ' n; echo hello $n\n", session);
    await readUntil(table.drives, drive.driveId, session, /Name\? $/);
    table.drives.send(drive.driveId, 'Ada\n', session);
    expect(await readUntil(table.drives, drive.driveId, session, /hello Ada\n/)).toContain('hello Ada');
  });

  it('interrupts a running command with Ctrl-C and keeps the drive', async () => {
    const drive = await open(table);
    // The shell has started and reads commands (a Ctrl-C during its start would end it), and the sleep runs: what is
    // waited for is the command's output, not the terminal's echo of the typed line.
    await run(table.drives, drive.driveId, session, 'true');
    table.drives.send(drive.driveId, 'echo "sle""eping"; sleep 100; echo "slept_$?"\n', session);
    await readUntil(table.drives, drive.driveId, session, /sleeping\r?\n/);
    table.drives.send(drive.driveId, '\u0003', session);
    const { output } = await run(table.drives, drive.driveId, session, 'echo after');
    expect(output).toBe('after\n');
    expect(table.drives.get(drive.driveId)?.state).toBe('open');
  });

  it('keeps an exited shell readable until closed, and refuses sends to it', async () => {
    const drive = await open(table);
    table.drives.send(drive.driveId, 'echo last words; exit 3\n', session);
    const text = await readUntilExited(table, drive.driveId);
    expect(text).toContain('last words');
    expect(table.drives.get(drive.driveId)).toMatchObject({ state: 'exited', exitCode: 3 });
    expect(() => table.drives.send(drive.driveId, 'echo again\n', session)).toThrow(/has exited \(code 3\)/);
    const closed = await table.drives.close(drive.driveId, 'closed', session);
    expect(closed.state).toBe('exited');
    expect((await table.ended(drive.driveId)).end.reason).toBe('closed');
    expect(table.drives.get(drive.driveId)).toBeUndefined();
  });

  it("lets an operator peek at the newest output without moving the agent's cursor", async () => {
    const drive = await open(table);
    await run(table.drives, drive.driveId, session, 'echo seen');
    table.drives.send(drive.driveId, 'echo unread_line\n', session);
    const first = await table.drives.read(drive.driveId, { waitMs: 5_000, maxChars: 5 }, session);
    expect(first).toMatchObject({ text: 'echo ', truncated: true });
    const peeked = table.drives.peek(drive.driveId);
    expect(peeked.text).toContain('seen\n');
    expect(peeked.text).toContain('echo unread_line');
    expect(table.drives.peek(drive.driveId, 8).text.length).toBeLessThanOrEqual(8);
    const rest = await readUntil(table.drives, drive.driveId, session, /unread_line\n/);
    expect(first.text + rest).toMatch(/^echo unread_line\n/);
  });

  it('starts in a cwd inside the workspace and refuses ones outside it', async () => {
    const workspace = join(table.workspaceRoot, 'coder');
    await mkdir(join(workspace, 'project', 'sub'), { recursive: true });
    const inside = await open(table, 'project/sub');
    expect(inside.cwd).toBe('/workspace/project/sub');
    expect((await run(table.drives, inside.driveId, session, 'pwd')).output).toBe('/workspace/project/sub\n');
    await symlink(table.dataDir, join(workspace, 'out-link'));
    for (const cwd of ['../', '/etc', 'project/../../', 'out-link']) {
      const refusal = await open(table, cwd).catch((error: unknown) => error);
      expect(isGatewayError(refusal) && refusal.kind).toBe('invalid_params');
      expect(String(refusal)).toContain('outside');
    }
    const missing = await open(table, 'nowhere').catch((error: unknown) => error);
    expect(isGatewayError(missing) && missing.kind).toBe('invalid_params');
    expect(table.drives.list()).toHaveLength(1);
  });

  it("makes the agent's workspace 0700", async () => {
    await open(table);
    expect((await stat(join(table.workspaceRoot, 'coder'))).mode & 0o777).toBe(0o700);
    await chmod(join(table.workspaceRoot, 'coder'), 0o755);
    await open(table);
    expect((await stat(join(table.workspaceRoot, 'coder'))).mode & 0o777).toBe(0o700);
  });
});

async function readUntilExited(table: DriveTable, driveId: string): Promise<string> {
  let text = '';
  for (;;) {
    const output = await table.drives.read(driveId, { waitMs: 1_000 }, session);
    text += output.text;
    if (output.state === 'exited') return text;
  }
}

/** Waits for `pattern` in the operator's view: each agent read of another drive is no help here, so peek after the agent's own wait. */
