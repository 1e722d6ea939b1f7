// The orchestrate script child as the CLI bundle ships it: bundleCli (run by the tests' global setup as by `npm run
// build`) emits orchestrate-script-child.mjs beside cli.bundle.mjs, the sandbox finds it from the bundle or a chunk,
// and it runs a script with quickjs-emscripten loaded from node_modules, in an empty environment.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { argumentsFor, locateChild } from '../../src/orchestrate/sandbox/child-entry.js';
import { childMessageSchema, type ChildMessage, type ParentMessage } from '../../src/orchestrate/sandbox/protocol.js';

describe('orchestrate script child in the CLI bundle', () => {
  const bundleDir = dirname(inject('cliBundle'));
  const bundledChild = join(bundleDir, 'orchestrate-script-child.mjs');

  it('is found beside cli.bundle.mjs and from a chunk of it', () => {
    expect(locateChild(pathToFileURL(join(bundleDir, 'cli.bundle.mjs')).href)).toBe(bundledChild);
    expect(locateChild(pathToFileURL(join(bundleDir, 'chunks', 'some-chunk.mjs')).href)).toBe(bundledChild);
  });

  it('runs a script that calls a tool, in an empty environment with cwd / and the permission grants closed', async () => {
    const child = spawn(process.execPath, argumentsFor(bundledChild), {
      cwd: '/',
      env: {},
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const received: ChildMessage[] = [];
    const send = (message: ParentMessage) => child.stdin.write(`${JSON.stringify(message)}\n`);
    let buffer = '';
    const done = new Promise<void>((resolve, reject) => {
      child.once('close', (code) =>
        received.at(-1)?.type === 'done' ? resolve() : reject(new Error(`exited ${code}`)),
      );
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
          const message = childMessageSchema.parse(JSON.parse(buffer.slice(0, newline)));
          buffer = buffer.slice(newline + 1);
          received.push(message);
          if (message.type === 'ready') {
            send({
              type: 'run',
              script: `const sum = await tools.add({ a: 2, b: 3 }); console.log('sum', sum); return { sum, env: typeof process };`,
              limits: { timeoutMs: 5000, memoryBytes: 16 * 1024 * 1024, stdoutBytes: 1000, maxToolCalls: 5 },
            });
          } else if (message.type === 'tool_call') {
            const { a, b } = z.strictObject({ a: z.number(), b: z.number() }).parse(JSON.parse(message.args));
            send({ type: 'tool_result', id: message.id, ok: true, json: JSON.stringify(a + b) });
          }
        }
      });
    });
    await done;
    expect(received).toEqual([
      { type: 'ready' },
      { type: 'tool_call', id: 0, tool: 'add', args: '{"a":2,"b":3}' },
      { type: 'stdout', text: 'sum 5\n' },
      { type: 'done', ending: 'returned', result: '{"sum":5,"env":"undefined"}' },
    ]);
  });
});
