// Where the gateway keeps its files: the data dir (config.yaml, secrets.yaml, gateway.db, media) and its defaults.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface GatewayPaths {
  dataDir: string;
  configPath: string;
  /** Secret values the config refers to as ${secret:NAME}; never committed (DESIGN §3). */
  secretsPath: string;
  databasePath: string;
}

/** `--data-dir`, else `$AGENT_GATEWAY_HOME`, else `~/.agent-gateway`; `--config` overrides the file. */
export function resolvePaths(options: { dataDir?: string; configPath?: string }, env: NodeJS.ProcessEnv): GatewayPaths {
  const dataDir = resolve(options.dataDir ?? env.AGENT_GATEWAY_HOME ?? join(homedir(), '.agent-gateway'));
  return {
    dataDir,
    configPath: resolve(options.configPath ?? join(dataDir, 'config.yaml')),
    secretsPath: join(dataDir, 'secrets.yaml'),
    databasePath: join(dataDir, 'gateway.db'),
  };
}

export interface PackageInfo {
  root: string;
  version: string;
  /** The dashboard build shipped with the package, when present. */
  webDistPath: string | null;
}

/** Finds this package's root (works from src/ under tsx and from dist/src/ once built). */
export function packageInfo(fromUrl: string = import.meta.url): PackageInfo {
  let dir = dirname(fileURLToPath(fromUrl));
  for (;;) {
    const manifestPath = join(dir, 'package.json');
    if (existsSync(manifestPath)) {
      const manifest: unknown = JSON.parse(readFileSync(manifestPath, 'utf8'));
      if (typeof manifest === 'object' && manifest !== null && 'name' in manifest && manifest.name === 'agent-gateway') {
        const version = 'version' in manifest && typeof manifest.version === 'string' ? manifest.version : '0.0.0';
        const webDist = join(dir, 'web', 'dist');
        return { root: dir, version, webDistPath: existsSync(webDist) ? webDist : null };
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return { root: dir, version: '0.0.0', webDistPath: null };
    dir = parent;
  }
}
