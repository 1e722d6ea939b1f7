// After stop() the Telegram adapter leaves nothing running: a process that used it (poll, download, send) exits by itself.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./exit-fixture.ts', import.meta.url));

describe('Telegram adapter, stop', () => {
  it('leaves no socket, timer or loop behind: the process ends on its own', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onTestFinished(() => {
      child.kill();
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // A handle left behind keeps the child alive past the test's timeout, which then fails it.
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).toBe('');
    expect(stdout).toBe('stopped disconnected\n');
    expect(code).toBe(0);
  }, 30_000);
});
