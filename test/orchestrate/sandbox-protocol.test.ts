// A script child that breaks the protocol (garbage, an oversized line, messages outside the schema, more tool calls or
// stdout than allowed, dying mid-run) is a bounded failure of that run, never a gateway crash or hang. The misbehaving
// children are small node programs standing in for the real one, started through runScript's nodePath.
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argumentsFor } from '../../src/orchestrate/sandbox/child-entry.js';
import { SCRIPT_EXIT_CODES, SCRIPT_TOOL_NAME_MAX_CHARS } from '../../src/orchestrate/sandbox/index.js';
import { expectChildGone, runRecorded, TEST_LIMITS } from '../support/script-sandbox.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'script-child-fake-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let fakes = 0;
/**
 * An executable standing in for node + the child entry (the entry's arguments are ignored): it says ready unless
 * `ready` is false, then runs `onLine` (JavaScript with `message` and `send`) for each line the gateway writes.
 */
async function fakeChild(onLine: string, ready = true): Promise<string> {
  const file = join(dir, `fake-${fakes++}.cjs`);
  await writeFile(
    file,
    `#!${process.execPath}
const send = (message) => process.stdout.write(typeof message === 'string' ? message : JSON.stringify(message) + '\\n');
${ready ? "send({ type: 'ready' });" : ''}
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  ${onLine}
});`,
  );
  await chmod(file, 0o755);
  return file;
}

describe('orchestrate sandbox protocol', () => {
  it('fails a run whose child sends a line that is not JSON', async () => {
    const run = await runRecorded('return 1;', {}, { nodePath: await fakeChild(`send('not json\\n');`) });
    expect(run).toMatchObject({
      exitCode: SCRIPT_EXIT_CODES.childFailed,
      failureClass: 'nonzero_exit',
      error: 'the script child broke the protocol: it sent a line that is not JSON',
    });
    expectChildGone(run);
  });

  it('fails a run whose child sends an oversized line without waiting for its end', async () => {
    const run = await runRecorded(
      'return 1;',
      {},
      {
        nodePath: await fakeChild(
          `const chunk = 'x'.repeat(1 << 20); for (let i = 0; i < 30; i++) process.stdout.write(chunk);`,
        ),
      },
    );
    expect(run).toMatchObject({
      exitCode: SCRIPT_EXIT_CODES.childFailed,
      error: expect.stringMatching(
        /^the script child broke the protocol: it sent a message longer than \d+ characters$/,
      ),
    });
    expectChildGone(run);
  });

  it('fails a run whose child sends messages outside the schema: an overlong tool name, a second ready, an unknown type', async () => {
    const bodies = [
      `send({ type: 'tool_call', id: 0, tool: 'x'.repeat(${SCRIPT_TOOL_NAME_MAX_CHARS + 1}), args: '{}' });`,
      `send({ type: 'ready' });`,
      `send({ type: 'exec', command: 'id' });`,
    ];
    for (const body of bodies) {
      const run = await runRecorded('return 1;', { x: () => 1 }, { nodePath: await fakeChild(body) });
      expect(run.exitCode).toBe(SCRIPT_EXIT_CODES.childFailed);
      expect(run.error).toMatch(
        /^the script child broke the protocol: it sent a (message outside the protocol|second ready)$/,
      );
      expect(run.calls).toEqual([]);
      expectChildGone(run);
    }
  });

  it('refuses tool calls past maxToolCalls at the gateway too, when the child does not', async () => {
    const nodePath = await fakeChild(`
      if (message.type === 'run') for (let id = 0; id < 3; id++) send({ type: 'tool_call', id, tool: 'count', args: JSON.stringify({ id }) });
      else {
        (globalThis.answers ??= []).push(message);
        if (globalThis.answers.length === 3) send({ type: 'done', ending: 'returned', result: JSON.stringify(globalThis.answers) });
      }`);
    const run = await runRecorded('return 1;', { count: (args) => args }, { nodePath, limits: { maxToolCalls: 1 } });
    expect(run.calls).toEqual([{ tool: 'count', args: { id: 0 } }]);
    expect(run.toolCalls).toBe(1);
    expect(run.result).toEqual(
      expect.arrayContaining([
        { type: 'tool_result', id: 0, ok: true, json: '{"id":0}' },
        { type: 'tool_result', id: 1, ok: false, message: 'tools.count: the run may call tools at most 1 times' },
        { type: 'tool_result', id: 2, ok: false, message: 'tools.count: the run may call tools at most 1 times' },
      ]),
    );
    expectChildGone(run);
  });

  it('cuts stdout at the cap at the gateway too, when the child does not', async () => {
    const nodePath = await fakeChild(
      `send({ type: 'stdout', text: 'y'.repeat(500) }); send({ type: 'done', ending: 'returned' });`,
    );
    const run = await runRecorded('return 1;', {}, { nodePath, limits: { stdoutBytes: 100 } });
    expect(run).toMatchObject({
      exitCode: SCRIPT_EXIT_CODES.stdoutCap,
      failureClass: 'stdout_cap',
      stdout: 'y'.repeat(100),
    });
    expectChildGone(run);
  });

  it('fails a run whose child dies mid-run, and reports a child that dies before ready as spawn_fail', async () => {
    const died = await runRecorded('return 1;', {}, { nodePath: await fakeChild('process.exit(3);') });
    expect(died).toMatchObject({
      exitCode: SCRIPT_EXIT_CODES.childFailed,
      failureClass: 'nonzero_exit',
      error: 'the script child exited (code 3)',
    });
    expectChildGone(died);
    const neverReady = await runRecorded(
      'return 1;',
      {},
      {
        nodePath: await fakeChild('', false).then(async (file) => {
          await writeFile(file, `#!${process.execPath}\nconsole.error('cannot load the engine'); process.exit(1);`);
          return file;
        }),
      },
    );
    expect(neverReady).toMatchObject({
      exitCode: SCRIPT_EXIT_CODES.spawnFailed,
      failureClass: 'spawn_fail',
      error: 'the script child exited (code 1): cannot load the engine',
    });
    expectChildGone(neverReady);
    // A crash report names the error, not node's version line that ends it.
    const crashed = await runRecorded(
      'return 1;',
      {},
      { nodePath: await fakeChild(`throw new RangeError('engine broke');`) },
    );
    expect(crashed).toMatchObject({
      exitCode: SCRIPT_EXIT_CODES.childFailed,
      error: 'the script child exited (code 1): RangeError: engine broke',
    });
    expectChildGone(crashed);
  });

  it('starts the child with an empty environment, cwd /, a small heap and only the run limits it was given', async () => {
    const nodePath = await fakeChild(`send({ type: 'done', ending: 'returned', result: JSON.stringify({
      env: process.env, cwd: process.cwd(), heap: process.argv.filter((arg) => arg.startsWith('--max-old-space-size')), limits: message.limits,
    }) });`);
    const limits = { ...TEST_LIMITS, timeoutMs: 1234, extra: 'dropped' };
    const run = await runRecorded('return 1;', {}, { nodePath, limits });
    expect(run.result).toEqual({
      env: {},
      cwd: '/',
      heap: ['--max-old-space-size=64'],
      limits: { ...TEST_LIMITS, timeoutMs: 1234 },
    });
    expectChildGone(run);
  });

  it("closes the child node's permission grants but reading its own folder and QuickJS's node_modules", async () => {
    const probe = join(dir, 'permission-probe.mjs');
    await writeFile(
      probe,
      `const has = (scope, path) => process.permission?.has(scope, path) ?? 'no permission model';
      process.stdout.write(JSON.stringify({
        write: has('fs.write'), childProcess: has('child_process'), worker: has('worker'),
        passwd: has('fs.read', '/etc/passwd'), home: has('fs.read', ${JSON.stringify(process.cwd())}),
        own: has('fs.read', ${JSON.stringify(probe)}),
      }));`,
    );
    const child = spawn(process.execPath, argumentsFor(probe), {
      cwd: '/',
      env: {},
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    await new Promise((resolve) => child.once('close', resolve));
    expect(JSON.parse(out)).toEqual({
      write: false,
      childProcess: false,
      worker: false,
      passwd: false,
      home: false,
      own: true,
    });
  });

  it('fails a run whose child sends a result that is not JSON', async () => {
    const nodePath = await fakeChild(`send({ type: 'done', ending: 'returned', result: '{oops' });`);
    const run = await runRecorded('return 1;', {}, { nodePath });
    expect(run).toMatchObject({
      exitCode: SCRIPT_EXIT_CODES.childFailed,
      error: 'the script child sent a result that is not JSON',
    });
    expectChildGone(run);
  });
});
