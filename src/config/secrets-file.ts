// <dataDir>/secrets.yaml: the secret values that config.yaml refers to as ${secret:NAME}; mode 0600, never committed.
import { readFile } from 'node:fs/promises';
import { parseDocument, stringify } from 'yaml';
import { ConfigError } from './config-error.js';
import { writeAtomically } from './config-file.js';

export type SecretValues = ReadonlyMap<string, string>;

const HEADER =
  '# Secret values of config.yaml (${secret:NAME}). Written by the gateway; never committed to the config history.\n';

/** The secrets in `path`; a missing file holds none. Throws ConfigError for a file that is not a mapping of strings. */
export async function readSecrets(path: string): Promise<Map<string, string>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return new Map();
    throw new ConfigError(
      `Cannot read secrets file ${path}: ${error instanceof Error && 'code' in error ? String(error.code) : String(error)}`,
    );
  }
  const doc = parseDocument(text);
  const parsed: unknown = doc.errors.length === 0 ? (doc.toJS() ?? {}) : undefined;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`Invalid secrets file ${path}: expected a mapping of names to strings`);
  }
  const secrets = new Map<string, string>();
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== 'string')
      throw new ConfigError(`Invalid secrets file ${path}: ${name}: expected a string`, [`${name}: expected a string`]);
    secrets.set(name, value);
  }
  return secrets;
}

export async function writeSecrets(path: string, secrets: SecretValues): Promise<void> {
  await writeAtomically(
    path,
    HEADER + stringify(Object.fromEntries([...secrets].sort(([a], [b]) => a.localeCompare(b)))),
  );
}
