// stop() leaves nothing running: a process that used both Slack modes and stopped them exits by itself.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./stop-exit-child.ts', import.meta.url));

/** After its adapters stopped, the child has nothing left to do; a socket, loop or timer left running keeps it alive. */
const EXIT_GRACE_MS = 10_000;

describe('Slack adapter stop', () => {
  it('lets the process exit on its own after stop', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let killer: NodeJS.Timeout | undefined;
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (killer === undefined && output.includes('stopped'))
        killer = setTimeout(() => child.kill('SIGKILL'), EXIT_GRACE_MS);
    });
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    clearTimeout(killer);
    expect(output).toContain('stopped');
    expect(exit).toEqual({ code: 0, signal: null });
  });
});
