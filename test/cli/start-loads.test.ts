// What a start reads: the bundled CLI started with the default config answers /health without having loaded any of
// the chunks it imports only at their first use (the upstream HTTP client, Redis, PostgreSQL, doctor, migrate).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, sourceCli } from '../support/cli.js';

/** Loader hooks for the child: every module file it loads is appended to the file named by LOADED_LOG. */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_LOG, url + '\\n');
  return next(url, context);
}
`;

describe('cli start: what it loads', () => {
  let home: string;
  let loadedLog: string;
  let loaded: string[];
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'agent-gateway-loads-'));
    loadedLog = join(home, 'loaded.log');
    await writeFile(join(home, 'hooks.mjs'), HOOKS);
    const register = `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(join(home, 'hooks.mjs')).href)});`;
    await writeFile(join(home, 'register.mjs'), register);
    const child = spawn(process.execPath, [sourceCli(), 'start', '--port', '0'], {
      env: cliEnv(home, {
        LOADED_LOG: loadedLog,
        NODE_OPTIONS: `--import=${pathToFileURL(join(home, 'register.mjs')).href}`,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (err += text));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        out += text;
        const match = /Agent Gateway listening on (https?:\/\/[^"\s]+)/.exec(out);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`exited (${code}) before listening:\n${out}\n${err}`)));
    });
    expect((await fetch(`${url}/health`)).status).toBe(200);
    loaded = (await readFile(loadedLog, 'utf8')).split('\n').filter((line) => line !== '');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('has put each part imported on first use in a chunk of its own, and loaded none of them', () => {
    const chunks = readdirSync(join(dirname(sourceCli()), 'chunks'));
    const firstUse = ['undici', 'redis', 'postgres', 'doctor', 'migrate'];
    for (const name of firstUse) expect(chunks.some((chunk) => chunk.startsWith(`${name}-`))).toBe(true);
    const loadedChunks = loaded.filter((url) => url.includes('/chunks/')).map((url) => basename(url));
    expect(loadedChunks.length).toBeGreaterThan(0);
    for (const name of firstUse) expect(loadedChunks.filter((chunk) => chunk.startsWith(`${name}-`))).toEqual([]);
  });
});
