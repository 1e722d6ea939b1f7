// The WebSocket snippet of docs/clients.md (the guide to connecting clients), extracted and run with node as the guide says, against a started gateway.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The first ```js block of docs/clients.md (the guide to connecting clients) that imports `ws`. */
async function readmeWebSocketSnippet(): Promise<string> {
  const readme = await readFile(join(ROOT, 'docs', 'clients.md'), 'utf8');
  const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  const snippet = blocks.find((block) => block.includes("from 'ws'"));
  if (snippet === undefined) throw new Error("docs/clients.md has no ```js block importing 'ws'");
  return snippet;
}

function runNode(
  file: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [file], { cwd, env, timeout: 20_000 }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

describe('README: the WebSocket snippet', () => {
  let gateway: Harness;
  let folder: string;

  beforeAll(async () => {
    gateway = await startGateway();
    // A folder where the user "ran npm install ws": its node_modules holds ws and nothing else of ours.
    folder = await mkdtemp(join(tmpdir(), 'agent-gateway-readme-'));
    await mkdir(join(folder, 'node_modules'));
    await symlink(join(ROOT, 'node_modules', 'ws'), join(folder, 'node_modules', 'ws'), 'dir');
  });
  afterAll(async () => {
    await gateway.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('runs on this Node as written and prints the system.ping answer', async () => {
    const snippet = await readmeWebSocketSnippet();
    expect(snippet).toContain('127.0.0.1:4766');
    // The README's instruction for another port: change 4766.
    const port = new URL(gateway.url).port;
    await writeFile(join(folder, 'ping.mjs'), snippet.replaceAll('127.0.0.1:4766', `127.0.0.1:${port}`));
    const result = await runNode('ping.mjs', folder, { PATH: process.env.PATH, TOKEN: gateway.tokens.rpc });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { pong: true, ts: expect.any(Number) },
    });
  });
});
