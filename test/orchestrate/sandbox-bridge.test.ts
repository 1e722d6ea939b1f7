// The orchestrate sandbox's bridge: a script's tools.* calls reach the gateway's callTool as JSON and their results come
// back, rejections are catchable errors, maxToolCalls holds, console.log is stdout, and the return value is JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllScriptRuns, prewarmScriptChildren, SCRIPT_EXIT_CODES } from '../../src/orchestrate/sandbox/index.js';
import { SCRIPT_TOOL_ARGS_MAX_CHARS, SCRIPT_TOOL_RESULT_MAX_CHARS } from '../../src/orchestrate/sandbox/protocol.js';
import { expectChildGone, runRecorded } from '../support/script-sandbox.js';

beforeAll(() => prewarmScriptChildren(3));
afterAll(() => killAllScriptRuns());

describe('orchestrate sandbox bridge', () => {
  it('calls three tools and returns their combined results, JSON round-tripped', async () => {
    const run = await runRecorded(
      `const [a, b] = await Promise.all([tools.alpha({ n: 1 }), tools.beta({ n: 2 })]);
       const c = await tools.gamma({ from: [a.value, b.value] });
       console.log('combined', a.value, b.value, c.sum);
       return { total: c.sum, parts: [a, b], when: new Date(0), skipped: undefined };`,
      {
        alpha: () => ({ value: 10 }),
        beta: () => ({ value: 20 }),
        gamma: (args) => ({ sum: (args as { from: number[] }).from.reduce((x, y) => x + y, 0) }),
      },
    );
    expect(run).toMatchObject({ exitCode: 0, toolCalls: 3, stdout: 'combined 10 20 30\n' });
    expect(run.failureClass).toBeUndefined();
    expect(run.result).toEqual({ total: 30, parts: [{ value: 10 }, { value: 20 }], when: '1970-01-01T00:00:00.000Z' });
    expect(run.calls).toEqual([
      { tool: 'alpha', args: { n: 1 } },
      { tool: 'beta', args: { n: 2 } },
      { tool: 'gamma', args: { from: [10, 20] } },
    ]);
    expect(run.firstToolCallMs).toEqual(expect.any(Number));
    expectChildGone(run);
  });

  it('throws a tool rejection inside the script as an Error with the message only, which the script may catch', async () => {
    const run = await runRecorded(
      `try {
         await tools.secret({});
         return 'not thrown';
       } catch (error) {
         return { isError: error instanceof Error, message: error.message, hostOnly: 'hostOnly' in error };
       }`,
      {
        secret: () => {
          throw Object.assign(new Error('denied: not leased'), { hostOnly: 'internal detail' });
        },
      },
    );
    expect(run.result).toEqual({ isError: true, message: 'denied: not leased', hostOnly: false });
    expect(run).toMatchObject({ exitCode: 0, toolCalls: 1 });
    expectChildGone(run);
  });

  it('rejects tools.* calls past maxToolCalls inside the script, without reaching callTool', async () => {
    const run = await runRecorded(
      `const seen = [];
       for (let i = 0; i < 4; i++) {
         try { seen.push(await tools.count({ i })); } catch (error) { seen.push(error.message); }
       }
       return seen;`,
      { count: (args) => (args as { i: number }).i },
      { limits: { maxToolCalls: 2 } },
    );
    expect(run.result).toEqual([
      0,
      1,
      'tools.count: the run may call tools at most 2 times',
      'tools.count: the run may call tools at most 2 times',
    ]);
    expect(run.toolCalls).toBe(2);
    expect(run.calls).toHaveLength(2);
    expectChildGone(run);
  });

  it('passes {} for a call without arguments and rejects arguments JSON cannot hold before they leave the script', async () => {
    const run = await runRecorded(
      `const plain = await tools.echo();
       const cyclic = {}; cyclic.self = cyclic;
       let message = 'sent';
       try { await tools.echo(cyclic); } catch (error) { message = error.name; }
       try { await tools.echo({ big: 1n }); } catch (error) { message += ' ' + error.name; }
       return { plain, message };`,
      { echo: (args) => args },
    );
    expect(run.result).toEqual({ plain: {}, message: 'TypeError TypeError' });
    expect(run.calls).toEqual([{ tool: 'echo', args: {} }]);
    expectChildGone(run);
  });

  it('leaves the result absent when the returned value has no JSON form, and still exits 0', async () => {
    for (const value of ['() => 1', 'undefined', '10n']) {
      const run = await runRecorded(`return ${value};`);
      expect(run.exitCode).toBe(0);
      expect(run).not.toHaveProperty('result');
      expectChildGone(run);
    }
  });

  it('writes console.log, console.error and console.warn lines to stdout, values as JSON', async () => {
    const run = await runRecorded(
      `console.log('a', 1, { b: [2] }, null); console.error('e'); console.warn(undefined); return 1;`,
    );
    expect(run.stdout).toBe('a 1 {"b":[2]} null\ne\nundefined\n');
    expectChildGone(run);
  });

  it('reports what the script threw, a syntax error, and a promise that can never settle as exit 1', async () => {
    const thrown = await runRecorded(`await tools.ok(); throw new TypeError('bad input');`, { ok: () => true });
    expect(thrown).toMatchObject({
      exitCode: SCRIPT_EXIT_CODES.threw,
      failureClass: 'nonzero_exit',
      error: 'TypeError: bad input',
    });
    const stringThrown = await runRecorded(`throw 'plain';`);
    expect(stringThrown.error).toBe('Uncaught plain');
    const syntax = await runRecorded(`return (;`);
    expect(syntax).toMatchObject({
      exitCode: 1,
      failureClass: 'nonzero_exit',
      error: expect.stringMatching(/^SyntaxError/),
    });
    const stuck = await runRecorded(`await new Promise(() => {}); return 1;`);
    expect(stuck).toMatchObject({ exitCode: 1, error: expect.stringContaining('never settled') });
    for (const run of [thrown, stringThrown, syntax, stuck]) expectChildGone(run);
  });

  it('answers a tool result JSON cannot hold with an error inside the script', async () => {
    const run = await runRecorded(`try { await tools.big(); } catch (error) { return error.message; }`, {
      big: () => 10n,
    });
    expect(run.result).toMatch(/^tools\.big: the result is not JSON/);
    expectChildGone(run);
  });

  it('rejects oversized arguments before they leave the script and an oversized tool result before it enters', async () => {
    const run = await runRecorded(
      `const out = [];
       try { await tools.echo({ text: 'a'.repeat(${SCRIPT_TOOL_ARGS_MAX_CHARS}) }); } catch (error) { out.push(error.message); }
       try { await tools.huge({}); } catch (error) { out.push(error.message); }
       return out;`,
      { echo: (args) => args, huge: () => 'b'.repeat(SCRIPT_TOOL_RESULT_MAX_CHARS) },
    );
    expect(run.result).toEqual([
      `tools.echo: the arguments are ${SCRIPT_TOOL_ARGS_MAX_CHARS + 11} characters of JSON, more than ${SCRIPT_TOOL_ARGS_MAX_CHARS}`,
      `tools.huge: the result is ${SCRIPT_TOOL_RESULT_MAX_CHARS + 2} characters of JSON, more than ${SCRIPT_TOOL_RESULT_MAX_CHARS}`,
    ]);
    expect(run.calls.map((call) => call.tool)).toEqual(['huge']);
    expectChildGone(run);
  });

  it('refuses a script longer than the cap, or invalid limits, without starting a child', async () => {
    const long = await runRecorded(`return 1; //${'x'.repeat(300 * 1024)}`);
    expect(long).toMatchObject({
      exitCode: 1,
      failureClass: 'nonzero_exit',
      error: expect.stringContaining('longer than'),
    });
    expect(long.pid).toBeUndefined();
    for (const limits of [
      { timeoutMs: 0 },
      { memoryBytes: 1.5 },
      { maxToolCalls: -1 },
      { stdoutBytes: 64 * 1024 * 1024 },
    ]) {
      const run = await runRecorded('return 1;', {}, { limits });
      expect(run).toMatchObject({
        exitCode: 1,
        failureClass: 'nonzero_exit',
        error: expect.stringContaining('limits are invalid'),
      });
      expect(run.pid).toBeUndefined();
    }
  });
});
