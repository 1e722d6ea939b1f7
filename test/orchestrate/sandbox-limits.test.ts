// The orchestrate sandbox's limits and endings: the deadline (a busy loop and a tool call that never answers), the
// memory cap, the stdout cap, a child that cannot start, an abort, deep recursion, and the child gone after each.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  killAllScriptRuns,
  prewarmScriptChildren,
  runScript,
  SCRIPT_EXIT_CODES,
} from '../../src/orchestrate/sandbox/index.js';
import { expectChildGone, processExists, processRunning, runRecorded, TEST_LIMITS } from '../support/script-sandbox.js';

// One pre-started child, awaited before each deadline test: a run's child then competes with one child starting in
// the background, not several, and reaches its first statement well within the short deadlines.
beforeAll(() => prewarmScriptChildren(1));
afterAll(() => killAllScriptRuns());

describe('orchestrate sandbox limits', () => {
  it('ends an infinite loop as a timeout and kills its child', async () => {
    const run = await runRecorded(`for (;;) {}`, {}, { limits: { timeoutMs: 300 } });
    expect(run).toMatchObject({
      exitCode: SCRIPT_EXIT_CODES.timeout,
      failureClass: 'timeout',
      error: 'the script ran longer than 300 ms',
    });
    expectChildGone(run);
  });

  // The next two need the script to have started before its deadline: on a loaded machine a child has been seen to
  // take over 600 ms from the script's arrival to its first line, so their deadline is longer.
  it('keeps the stdout a busy script wrote before its deadline', async () => {
    await prewarmScriptChildren(1);
    const run = await runRecorded(
      `console.log('before'); await tools.started(); for (;;) {}`,
      { started: () => true },
      { limits: { timeoutMs: 1500 } },
    );
    expect(run).toMatchObject({
      exitCode: SCRIPT_EXIT_CODES.timeout,
      failureClass: 'timeout',
      stdout: 'before\n',
      toolCalls: 1,
    });
    expectChildGone(run);
  });

  it('ends a run waiting on a tool call past the deadline as a timeout and aborts that call', async () => {
    await prewarmScriptChildren(1);
    let callSignal: AbortSignal | undefined;
    const run = await runScript({
      script: `await tools.slow({}); return 'never';`,
      limits: { ...TEST_LIMITS, timeoutMs: 1500 },
      callTool: (_tool, _args, { signal }) => {
        callSignal = signal;
        return new Promise(() => undefined);
      },
    });
    expect(run).toMatchObject({ exitCode: SCRIPT_EXIT_CODES.timeout, failureClass: 'timeout', toolCalls: 1 });
    expect(callSignal?.aborted).toBe(true);
    expectChildGone(run);
  });

  it('fails a 100 MB string on the memory cap with an out of memory error', async () => {
    const run = await runRecorded(
      `const big = 'x'.repeat(100 * 1024 * 1024); return big.length;`,
      {},
      { limits: { memoryBytes: 16 * 1024 * 1024 } },
    );
    expect(run).toMatchObject({
      exitCode: SCRIPT_EXIT_CODES.threw,
      failureClass: 'nonzero_exit',
      error: expect.stringContaining('out of memory'),
    });
    expect(run).not.toHaveProperty('result');
    expectChildGone(run);
  });

  it('stops a run flooding stdout at the cap, keeping exactly the cap of whole characters', async () => {
    const run = await runRecorded(
      `for (let i = 0; ; i++) console.log('flood é ' + i);`,
      {},
      { limits: { stdoutBytes: 1000 } },
    );
    expect(run).toMatchObject({
      exitCode: SCRIPT_EXIT_CODES.stdoutCap,
      failureClass: 'stdout_cap',
      error: 'the script wrote more than 1000 bytes to stdout',
    });
    expect(Buffer.byteLength(run.stdout)).toBeGreaterThan(990);
    expect(Buffer.byteLength(run.stdout)).toBeLessThanOrEqual(1000);
    expect(run.stdout.startsWith('flood é 0\nflood é 1\n')).toBe(true);
    expect(run.stdout).not.toContain('\uFFFD');
    expectChildGone(run);
  });

  it('stops at the stdout cap even when the script catches what follows', async () => {
    const run = await runRecorded(
      `for (;;) { try { console.log('x'.repeat(100)); } catch {} }`,
      {},
      { limits: { stdoutBytes: 250, timeoutMs: 3000 } },
    );
    expect(run).toMatchObject({
      failureClass: 'stdout_cap',
      stdout: `${'x'.repeat(100)}\n${'x'.repeat(100)}\n${'x'.repeat(48)}`,
    });
    expectChildGone(run);
  });

  it('reports a child that cannot start as spawn_fail', async () => {
    const run = await runRecorded(`return 1;`, {}, { nodePath: '/nonexistent/node' });
    expect(run).toMatchObject({
      exitCode: SCRIPT_EXIT_CODES.spawnFailed,
      failureClass: 'spawn_fail',
      error: expect.stringContaining('could not start'),
      toolCalls: 0,
    });
    expect(run.pid).toBeUndefined();
  });

  it('kills the child at once when the caller aborts mid-run, naming the reason', async () => {
    const controller = new AbortController();
    const run = await runScript({
      script: `await tools.first({}); for (;;) {}`,
      limits: TEST_LIMITS,
      signal: controller.signal,
      callTool: async () => {
        controller.abort(new Error('the turn was cancelled'));
        return null;
      },
    });
    expect(run).toMatchObject({
      exitCode: SCRIPT_EXIT_CODES.aborted,
      failureClass: 'nonzero_exit',
      error: 'aborted: the turn was cancelled',
      toolCalls: 1,
    });
    expectChildGone(run);
  });

  it('starts no child when the signal is already aborted', async () => {
    const run = await runRecorded(`return 1;`, {}, { signal: AbortSignal.abort('shutting down') });
    expect(run).toMatchObject({ exitCode: SCRIPT_EXIT_CODES.aborted, error: 'aborted: shutting down' });
    expect(run.pid).toBeUndefined();
  });

  it('throws deep recursion inside the script as a catchable error, and the run goes on', async () => {
    const run = await runRecorded(`function deep(n) { return deep(n + 1) + 1; }
      try { deep(0); } catch (error) { return error.name + ': ' + error.message; }`);
    expect(run).toMatchObject({ exitCode: 0, result: 'InternalError: stack overflow' });
    expectChildGone(run);
  });

  it('kills running and pre-started children on killAllScriptRuns', async () => {
    await prewarmScriptChildren(2);
    let release: (() => void) | undefined;
    const called = new Promise<void>((resolve) => {
      release = resolve;
    });
    const running = runScript({
      script: `await tools.wait({}); return 1;`,
      limits: TEST_LIMITS,
      callTool: () => {
        release?.();
        return new Promise(() => undefined);
      },
    });
    await called;
    killAllScriptRuns();
    const run = await running;
    expect(run).toMatchObject({
      exitCode: SCRIPT_EXIT_CODES.childFailed,
      failureClass: 'nonzero_exit',
      error: expect.stringContaining('SIGKILL'),
    });
    expect(processExists(run.pid ?? 0)).toBe(false);
    await prewarmScriptChildren(1);
  });

  it('leaves no script child running once the gateway process exits', async () => {
    const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const host = spawn(
      process.execPath,
      ['--import', loader, fileURLToPath(new URL('../support/script-sandbox-exit-host.ts', import.meta.url))],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    host.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const code = await new Promise((resolve) => host.once('close', resolve));
    expect(code).toBe(0);
    const children = z.array(z.number().int().positive()).parse(JSON.parse(out));
    // The run's child and the pre-started one that replaced it in the pool.
    expect(children.length).toBeGreaterThanOrEqual(2);
    // Nothing signals a stranger's death, and SIGKILL takes effect when the child is next scheduled: poll, bounded.
    const stillRunning = async () => {
      for (let attempt = 0; attempt < 50; attempt++) {
        const running = children.filter(processRunning);
        if (running.length === 0) return running;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return children.filter(processRunning);
    };
    expect(await stillRunning()).toEqual([]);
  });
});
