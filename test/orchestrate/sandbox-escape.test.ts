// Escape attempts from an orchestrate script: each one must fail, and the test asserts what the script itself observes
// (the sandbox is security: no file system, network, process or environment access, and nothing of the gateway).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllScriptRuns, prewarmScriptChildren } from '../../src/orchestrate/sandbox/index.js';
import { expectChildGone, runRecorded } from '../support/script-sandbox.js';

beforeAll(() => prewarmScriptChildren(3));
afterAll(() => killAllScriptRuns());

/** ECMAScript's own globals as QuickJS defines them, plus the two the sandbox adds: tools and console. */
const SCRIPT_GLOBALS = [
  'AggregateError',
  'Array',
  'ArrayBuffer',
  'BigInt',
  'BigInt64Array',
  'BigUint64Array',
  'Boolean',
  'DataView',
  'Date',
  'Error',
  'EvalError',
  'FinalizationRegistry',
  'Float16Array',
  'Float32Array',
  'Float64Array',
  'Function',
  'Infinity',
  'Int16Array',
  'Int32Array',
  'Int8Array',
  'InternalError',
  'Iterator',
  'JSON',
  'Map',
  'Math',
  'NaN',
  'Number',
  'Object',
  'Promise',
  'Proxy',
  'RangeError',
  'ReferenceError',
  'Reflect',
  'RegExp',
  'Set',
  'SharedArrayBuffer',
  'String',
  'Symbol',
  'SyntaxError',
  'TypeError',
  'URIError',
  'Uint16Array',
  'Uint32Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'WeakMap',
  'WeakRef',
  'WeakSet',
  'console',
  'decodeURI',
  'decodeURIComponent',
  'encodeURI',
  'encodeURIComponent',
  'escape',
  'eval',
  'globalThis',
  'isFinite',
  'isNaN',
  'parseFloat',
  'parseInt',
  'tools',
  'undefined',
  'unescape',
];

/** Runs `attempt` (an expression) inside try/catch in the script and returns what it evaluated to or threw. */
function probe(attempt: string): string {
  return `(async () => { try { const value = await (${attempt}); return 'got ' + typeof value; } catch (error) { return 'threw ' + (error && error.name); } })()`;
}

describe('orchestrate sandbox escape attempts', () => {
  it('has no require, module, process, Buffer or environment in any global scope', async () => {
    const run = await runRecorded(`
      const names = ['require', 'module', 'exports', 'process', 'Buffer', 'global', '__dirname', 'Deno', 'Bun', 'std', 'os', 'scriptArgs', 'setTimeout', 'queueMicrotask'];
      const sloppyThis = Function('return this')();
      const indirectEval = (0, eval)('this');
      return {
        typeofs: names.map((name) => typeof globalThis[name]),
        sameGlobal: sloppyThis === globalThis && indirectEval === globalThis,
        requireCall: await ${probe("require('fs')")},
        processCall: await ${probe('process.env')},
        inFunction: await ${probe("Function('return process')()")},
      };`);
    expect(run.result).toEqual({
      typeofs: Array(14).fill('undefined'),
      sameGlobal: true,
      requireCall: 'threw ReferenceError',
      processCall: 'threw ReferenceError',
      inFunction: 'threw ReferenceError',
    });
    expectChildGone(run);
  });

  it('sees only the ECMAScript built-ins, tools and console on globalThis', async () => {
    const run = await runRecorded(`return Object.getOwnPropertyNames(globalThis).sort();`);
    expect(run.result).toEqual([...SCRIPT_GLOBALS].sort());
    expectChildGone(run);
  });

  it('cannot import anything: dynamic import() of a node builtin, a file, a data: URL or a package rejects', async () => {
    const run = await runRecorded(`
      const specifiers = ['fs', 'node:fs', 'node:child_process', '/etc/passwd', 'file:///etc/passwd', 'data:text/javascript,export default 1', 'quickjs-emscripten', 'std', 'os'];
      const outcomes = [];
      for (const specifier of specifiers) {
        try { await import(specifier); outcomes.push('imported ' + specifier); } catch (error) { outcomes.push(error.name); }
      }
      return outcomes;`);
    expect(run.result).toEqual(Array(9).fill('ReferenceError'));
    const staticImport = await runRecorded(`import fs from 'fs'; return 1;`);
    expect(staticImport).toMatchObject({ exitCode: 1, error: expect.stringMatching(/^SyntaxError/) });
    for (const each of [run, staticImport]) expectChildGone(each);
  });

  it('has no network: fetch, XMLHttpRequest, WebSocket and sockets are absent', async () => {
    const run = await runRecorded(`
      return {
        kinds: [typeof fetch, typeof XMLHttpRequest, typeof WebSocket, typeof EventSource, typeof navigator],
        fetchCall: await ${probe("fetch('http://127.0.0.1:1/')")},
      };`);
    expect(run.result).toEqual({ kinds: Array(5).fill('undefined'), fetchCall: 'threw ReferenceError' });
    expectChildGone(run);
  });

  it('reaches nothing through the Function constructor or constructor.constructor, from its own or the bridge functions', async () => {
    const run = await runRecorded(`
      const FromTool = tools.anything.constructor.constructor;
      const FromConsole = console.log.constructor;
      const AsyncFunction = (async () => {}).constructor;
      const attempts = [
        () => FromTool('return typeof process + typeof require + typeof fetch')(),
        () => FromConsole('return this')() === globalThis,
        () => ({}).constructor.constructor('return this === globalThis')(),
        () => AsyncFunction('return typeof require')(),
        () => Reflect.construct(Function, ['return typeof os'])(),
      ];
      const out = [];
      for (const attempt of attempts) out.push(await attempt());
      return { out, sameFunction: FromTool === Function && FromConsole === Function };`);
    expect(run.result).toEqual({
      out: ['undefinedundefinedundefined', true, true, 'undefined', 'undefined'],
      sameFunction: true,
    });
    expect(run.calls).toEqual([]);
    expectChildGone(run);
  });

  it('cannot change the bridge or reach through it; prototype pollution stays inside the script and this run', async () => {
    const polluted = await runRecorded(
      `'use strict';
       Object.prototype.polluted = 'yes';
       Array.prototype.polluted = 'yes';
       Object.prototype.toJSON = undefined;
       const refused = [];
       for (const change of [
         () => { tools.echo = () => 'mine'; },
         () => Object.setPrototypeOf(tools, { echo: () => 'mine' }),
         () => Object.defineProperty(tools, 'echo', { value: 1 }),
         () => { globalThis.tools = {}; },
         () => { console.log = () => {}; },
       ]) {
         try { change(); refused.push('changed'); } catch (error) { refused.push(error.name); }
       }
       tools.__proto__.polluted = 'bridge';
       const viaProto = await tools.__proto__({ x: 1 });
       const echoed = await tools.echo(JSON.parse('{"__proto__": {"polluted": "args"}, "constructor": {"prototype": {"polluted": "ctor"}}}'));
       return { refused, sameTools: tools === globalThis.tools, viaProto, echoedPolluted: echoed.polluted ?? null, thenable: typeof tools.then };`,
      {
        echo: (args) => args,
        ['__proto__']: () => 'a tool named __proto__ is only a name',
      },
    );
    expect(polluted.error).toBeUndefined();
    expect(polluted.result).toEqual({
      refused: ['TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError'],
      sameTools: true,
      viaProto: 'a tool named __proto__ is only a name',
      // The script's own Object.prototype is polluted, as it asked; its args crossed as JSON text and came back parsed.
      echoedPolluted: 'yes',
      thenable: 'undefined',
    });
    expect(polluted.calls).toHaveLength(2);
    const [protoCall, echoCall] = polluted.calls;
    expect(protoCall).toEqual({ tool: '__proto__', args: { x: 1 } });
    expect(Object.hasOwn(echoCall?.args as object, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(echoCall?.args)).toBe(Object.prototype);
    // The gateway's realm is untouched, and so is the next run's.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(([] as unknown as Record<string, unknown>).polluted).toBeUndefined();
    const next = await runRecorded(
      `return [typeof ({}).polluted, typeof [].polluted, typeof Object.prototype.toJSON];`,
    );
    expect(next.result).toEqual(['undefined', 'undefined', 'undefined']);
    for (const run of [polluted, next]) expectChildGone(run);
  });

  it('cannot read /etc/passwd by any means it has', async () => {
    const passwd = readFileSync('/etc/passwd', 'utf8');
    expect(passwd).toMatch(/^root:/);
    const run = await runRecorded(`
      const attempts = {
        require: () => require('fs').readFileSync('/etc/passwd', 'utf8'),
        importFs: () => import('fs').then((fs) => fs.readFileSync('/etc/passwd', 'utf8')),
        importFile: () => import('/etc/passwd'),
        stdLoadFile: () => std.loadFile('/etc/passwd'),
        osOpen: () => os.open('/etc/passwd', 0),
        fetchFile: () => fetch('file:///etc/passwd').then((r) => r.text()),
        processBinding: () => process.binding('fs'),
        viaFunction: () => Function('return require')()('fs'),
        viaTool: () => tools.readFile({ path: '/etc/passwd' }),
      };
      const out = {};
      for (const [name, attempt] of Object.entries(attempts)) {
        try { const value = await attempt(); out[name] = 'read ' + String(value).slice(0, 20); } catch (error) { out[name] = error.name + ': ' + error.message; }
      }
      console.log(JSON.stringify(out));
      return out;`);
    const outcomes = Object.entries(run.result as Record<string, string>);
    expect(outcomes).toHaveLength(9);
    for (const [name, outcome] of outcomes) {
      // The only way out is callTool, which here knows no tool named readFile.
      expect(outcome, name).toMatch(name === 'viaTool' ? /^Error: unknown tool readFile$/ : /^ReferenceError/);
    }
    expect(run.stdout).not.toContain('root:');
    expect(JSON.stringify(run.result)).not.toContain('root:');
    expectChildGone(run);
  });

  it('cannot spawn a process: child_process, os.exec, process.binding and worker constructors are absent', async () => {
    const run = await runRecorded(`
      const out = [];
      for (const attempt of [
        () => require('child_process').execSync('id'),
        () => import('node:child_process').then((cp) => cp.execSync('id')),
        () => os.exec(['/bin/sh', '-c', 'id']),
        () => process.binding('spawn_sync'),
        () => new Worker('data:text/javascript,1'),
        () => Function('return process')().kill(1),
      ]) {
        try { await attempt(); out.push('ran'); } catch (error) { out.push(error.name); }
      }
      return out;`);
    expect(run.result).toEqual(Array(6).fill('ReferenceError'));
    expectChildGone(run);
  });
});
