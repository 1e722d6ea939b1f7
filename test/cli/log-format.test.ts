// `agent-gateway start` logs: JSON lines with level names, or pino-pretty's human lines with --log-format pretty or
// LOG_FORMAT; --help names the options and the level names; a bad format or level is refused before anything starts.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, spawnCli, type RunningCli } from '../support/cli.js';

/** The first start's curl line, printed once the gateway listens, whatever the log level. */
/**
 * NODE_OPTIONS that make the child write `loaded <file>` to stderr for each file of the bundle it reads, and
 * `pino-pretty code in <file>` for one holding pino-pretty (its `prettyFactory`), wherever the bundler put it.
 */
const CHUNK_LOG_HOOK = `export async function load(url, context, next) {
  const result = await next(url, context);
  if (url.includes('cli.bundle') || url.includes('/chunks/')) {
    const file = url.split('/').pop();
    process._rawDebug('loaded ' + file);
    if (String(result.source).includes('prettyFactory')) process._rawDebug('pino-pretty code in ' + file);
  }
  return result;
}`;
const CHUNK_LOG_OPTIONS = `--import=data:text/javascript,${encodeURIComponent(
  `import { register } from 'node:module'; register('data:text/javascript,' + ${JSON.stringify(encodeURIComponent(CHUNK_LOG_HOOK))});`,
)}`;

const LISTENING = /curl -H .* (https?:\/\/\S+)\/rpc\n/;

describe('cli log format', () => {
  const homes: string[] = [];
  const servers: RunningCli[] = [];
  const newHome = async () => {
    const home = await mkdtemp(join(tmpdir(), 'agent-gateway-logs-'));
    homes.push(home);
    return home;
  };
  /** Starts the gateway, waits for it to listen, and stops it with SIGTERM; answers all it wrote to stdout. */
  const startAndStop = async (args: string[], env: Record<string, string> = {}) => {
    const server = spawnCli(['start', '--port', '0', ...args], await newHome(), 'source', env);
    servers.push(server);
    await server.waitForOutput(LISTENING, 30_000);
    server.child.kill('SIGTERM');
    expect({ exited: await server.exited, stdout: server.stdout(), stderr: server.stderr() }).toMatchObject({
      exited: 0,
    });
    return { stdout: server.stdout(), stderr: server.stderr() };
  };
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      if (server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGKILL');
        await server.exited;
      }
    }
    // A git commit of the config history the killed gateway started may still be writing into the home's .git.
    for (const home of homes.splice(0))
      await rm(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it('writes JSON lines with level names when stdout is not a terminal', async () => {
    const { stdout } = await startAndStop([]);
    const entries = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.find((entry) => String(entry.msg).startsWith('Agent Gateway listening on'))).toMatchObject({
      level: 'info',
      service: 'agent-gateway',
    });
    expect(entries.every((entry) => typeof entry.level === 'string')).toBe(true);
    expect(entries.find((entry) => entry.msg === 'stopped')).toMatchObject({ level: 'info' });
  });

  it('--log-format json at --log-level warn writes no info line', async () => {
    const { stdout } = await startAndStop(['--log-format', 'json', '--log-level', 'warn']);
    expect(stdout).not.toContain('"level":"info"');
    expect(stdout).not.toContain('Agent Gateway listening on');
  });

  for (const [label, args, env] of [
    ['--log-format pretty', ['--log-format', 'pretty'], {}],
    ['LOG_FORMAT=pretty', [], { LOG_FORMAT: 'pretty' }],
  ] as const) {
    it(`${label} writes human lines: the level as a word, no JSON object per line`, async () => {
      const { stdout } = await startAndStop([...args], { ...env });
      const lines = stdout.split('\n').filter((line) => line.trim() !== '');
      const listening = lines.find((line) => line.includes('Agent Gateway listening on'));
      expect(listening).toMatch(/INFO.*Agent Gateway listening on http:\/\/127\.0\.0\.1:\d+/);
      expect(lines.filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
      expect(lines.some((line) => /INFO.*stopped/.test(line))).toBe(true);
    });
  }

  it('a JSON start never reads pino-pretty; a pretty one does', async () => {
    const json = await startAndStop(['--log-format', 'json'], { NODE_OPTIONS: CHUNK_LOG_OPTIONS });
    expect(json.stderr).toMatch(/^loaded cli\.bundle\.mjs$/m);
    expect(json.stderr).not.toContain('pino-pretty');
    const pretty = await startAndStop(['--log-format', 'pretty'], { NODE_OPTIONS: CHUNK_LOG_OPTIONS });
    expect(pretty.stderr).toMatch(/^pino-pretty code in \S+\.mjs$/m);
  });

  it('--help lists --log-format, --log-level with the level names, LOG_FORMAT and LOG_LEVEL', async () => {
    const { code, stdout } = await runCli(['--help'], await newHome());
    expect(code).toBe(0);
    expect(stdout).toMatch(/--log-format pretty\|json/);
    expect(stdout).toMatch(/--log-level fatal\|error\|warn\|info\|debug\|trace\|silent/);
    expect(stdout).toContain('LOG_FORMAT');
    expect(stdout).toContain('LOG_LEVEL');
  });

  for (const [label, args, env, message] of [
    ['--log-format xml', ['--log-format', 'xml'], {}, /--log-format must be pretty or json, got xml/],
    ['LOG_FORMAT=xml', [], { LOG_FORMAT: 'xml' }, /LOG_FORMAT must be pretty or json, got xml/],
    ['--log-level loud', ['--log-level', 'loud'], {}, /--log-level must be one of fatal, error, .*silent; got loud/],
    ['LOG_LEVEL=loud', [], { LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of fatal, error, .*silent; got loud/],
  ] as const) {
    it(`refuses ${label} with a usage error, before creating anything`, async () => {
      const home = await newHome();
      const { code, stderr } = await runCli(['start', '--port', '0', ...args], home, { ...env });
      expect(code).toBe(2);
      expect(stderr).toMatch(message);
      expect(stderr).not.toMatch(/^\s+at /m);
      expect(existsSync(join(home, 'config.yaml'))).toBe(false);
    });
  }
});
