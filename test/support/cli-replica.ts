// Gateway replicas as a replicated deployment runs them: `agent-gateway start` processes sharing one database and one
// Redis, each in its own home directory, reached over /rpc with an admin token.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnCli, type RunningCli } from './cli.js';

export const REPLICA_ADMIN_SECRET = 'replica-admin-secret-0123456789abcdefghij';

export interface Replica {
  home: string;
  process: RunningCli;
  url: string;
}

/**
 * `seedLines`: the whole config the first replica puts in the database (omit it for a replica whose file only says
 * where the shared servers are).
 */
export async function startReplica(options: {
  databaseUrl: string;
  redisUrl: string;
  seedLines?: readonly string[];
}): Promise<Replica> {
  const home = await mkdtemp(join(tmpdir(), 'agent-gateway-replica-'));
  const shared = [
    `storage: { kind: postgres, url: "${options.databaseUrl}" }`,
    `coordination: { kind: redis, url: "${options.redisUrl}" }`,
    '',
  ];
  await writeFile(join(home, 'config.yaml'), [...(options.seedLines ?? []), ...shared].join('\n'), { mode: 0o600 });
  const process = spawnCli(['start', '--port', '0'], home);
  const [, url = ''] = await process.waitForOutput(/Agent Gateway listening on (https?:\/\/[^"\s]+)/, 60_000);
  return { home, process, url };
}

/** SIGTERM when it still runs, then its home directory removed. */
export async function stopReplica(replica: Replica | undefined): Promise<void> {
  if (replica === undefined) return;
  const { child } = replica.process;
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    await replica.process.exited;
  }
  await rm(replica.home, { recursive: true, force: true });
}

/** A JSON-RPC call over POST /rpc as admin; resolves with the result or throws with the whole answer. */
export async function replicaRpc(
  replica: Replica,
  method: string,
  params: unknown = {},
): Promise<Record<string, unknown>> {
  const response = await fetch(`${replica.url}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${REPLICA_ADMIN_SECRET}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (body.result === undefined) throw new Error(`${method} answered ${JSON.stringify(body)}`);
  return body.result;
}
