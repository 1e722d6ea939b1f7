// Creates the data directory and a starter config.yaml with one admin token when none exists yet; the token's
// secret goes to secrets.yaml and the config refers to it, so it never enters the config history.
import { randomBytes } from 'node:crypto';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Document } from 'yaml';
import { getPath, type RawConfig } from './config-edit.js';
import { readSecrets, writeSecrets } from './secrets-file.js';
import { externalizeSecrets } from './secrets.js';

export interface FirstRunResult {
  created: boolean;
  /** The generated admin secret; only set when the file was created now, so it is shown exactly once. */
  adminSecret?: string;
}

const SECRET_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random secret of `length` characters from [A-Za-z0-9], without modulo bias. */
export function generateSecret(length = 48): string {
  let secret = '';
  while (secret.length < length) {
    for (const byte of randomBytes(length)) {
      // 248 = 4 * 62: bytes above it would favour the first letters of the alphabet.
      if (byte < 248 && secret.length < length) secret += SECRET_ALPHABET[byte % SECRET_ALPHABET.length];
    }
  }
  return secret;
}

/** The commented example a starter file shows when nothing was found to configure. */
const EXAMPLE_PROVIDER = `
# providers:
#   local:
#     type: openai-compatible
#     baseUrl: http://127.0.0.1:11434/v1
#     models:
#       - { id: llama3.2, contextWindow: 131072, maxTokens: 4096 }
# agents:
#   default:
#     name: Assistant
#     provider: local
#     model: llama3.2
`;

/**
 * `adminSecret` is what the file holds for the admin token: the `${secret:NAME}` reference to its value; `sections`,
 * when given and not empty, are written after the gateway section in place of the commented example.
 */
export function starterConfigText(adminSecret: string, sections: RawConfig = {}): string {
  const found =
    Object.keys(sections).length === 0
      ? EXAMPLE_PROVIDER
      : `\n# Found in the environment and on local ports (README "First start finds your models"); API keys are\n# \${ENV} references to your environment, never their values.\n${new Document(sections).toString()}`;
  return `# Agent Gateway configuration. Reference: README.md ("Configuration").
# Secret and URL fields (token secret, apiKey, baseUrl, url) may use \${ENV_VAR}; secret values live in
# secrets.yaml beside this file and appear here as \${secret:NAME}. Changes made through config.*, agents.* and
# tokens.* are committed to git here.
gateway:
  host: 127.0.0.1
  port: 4766
  tokens:
    - id: admin
      secret: "${adminSecret}"
      scopes: ["*"]
${found}`;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * Writes the starter file with `wx`, so an existing config is never overwritten. The secret is saved to
 * `secretsPath` first, so the reference in the new file always resolves. `findSections` is asked only when there is
 * no file yet (a first start's provider detection), for sections to write beside the gateway's.
 */
export async function ensureConfigFile(
  configPath: string,
  secretsPath: string = join(dirname(configPath), 'secrets.yaml'),
  findSections?: () => Promise<RawConfig>,
): Promise<FirstRunResult> {
  if (await exists(configPath)) return { created: false };
  const sections = findSections === undefined ? {} : await findSections();
  await mkdir(dirname(configPath), { recursive: true, mode: 0o700 });
  const adminSecret = generateSecret();
  const externalized = externalizeSecrets(
    { gateway: { tokens: [{ id: 'admin', secret: adminSecret }] } },
    await readSecrets(secretsPath),
  );
  const reference = getPath(externalized.raw, ['gateway', 'tokens', '0', 'secret']);
  if (typeof reference !== 'string') throw new TypeError('the admin secret was not moved to secrets.yaml');
  await mkdir(dirname(secretsPath), { recursive: true, mode: 0o700 });
  await writeSecrets(secretsPath, externalized.secrets);
  try {
    await writeFile(configPath, starterConfigText(reference, sections), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'EEXIST') return { created: false };
    throw error;
  }
  return { created: true, adminSecret };
}
