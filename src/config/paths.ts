// Where the gateway keeps its files: the data dir (config.yaml, secrets.yaml, gateway.db, media) and its defaults.
import { existsSync, readFileSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir, stat } from 'node:fs/promises';
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

/**
 * The data dir holds the SQLite file (token hashes, transcripts), config.yaml (secrets) and media: only its
 * owner may enter it or read what is inside (DESIGN §3 "secrets and config history").
 */
export const DATA_DIR_MODE = 0o700;

/**
 * Creates the data dir 0700 and takes group and other permissions away from it and its direct entries when an
 * older install left them looser (a 0644 file becomes 0600, a 0755 directory 0700). Symlinks inside are left alone, since chmod
 * would change their target. Only the top level is walked: the dir being 0700 already closes everything below.
 * Returns the paths it tightened.
 */
export async function securePrivateDataDir(dataDir: string): Promise<string[]> {
  await mkdir(dataDir, { recursive: true, mode: DATA_DIR_MODE });
  const tightened: string[] = [];
  const tighten = async (path: string, mode: number): Promise<void> => {
    if ((mode & 0o077) === 0) return;
    await chmod(path, mode & 0o700);
    tightened.push(path);
  };
  // stat, not lstat: a data dir reached through a symlink is tightened where it really is.
  await tighten(dataDir, (await stat(dataDir)).mode);
  for (const entry of await readdir(dataDir, { withFileTypes: true })) {
    if (!entry.isFile() && !entry.isDirectory()) continue;
    const path = join(dataDir, entry.name);
    await tighten(path, (await lstat(path)).mode);
  }
  return tightened;
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
      if (
        typeof manifest === 'object' &&
        manifest !== null &&
        'name' in manifest &&
        manifest.name === 'agent-gateway'
      ) {
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
