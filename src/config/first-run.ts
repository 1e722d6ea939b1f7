// Creates the data directory and a starter config.yaml with one admin token when none exists yet.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

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

export function starterConfigText(adminSecret: string): string {
  return `# Agent Gateway configuration. Reference: README.md ("Configuration").
# Strings may use \${ENV_VAR}. Changes made through config.*, agents.* and tokens.* are committed to git here.
gateway:
  host: 127.0.0.1
  port: 4766
  tokens:
    - id: admin
      secret: ${adminSecret}
      scopes: ["*"]

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
}

/** Writes the starter file with `wx`, so an existing config is never overwritten. */
export async function ensureConfigFile(configPath: string): Promise<FirstRunResult> {
  await mkdir(dirname(configPath), { recursive: true, mode: 0o700 });
  const adminSecret = generateSecret();
  try {
    await writeFile(configPath, starterConfigText(adminSecret), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'EEXIST') return { created: false };
    throw error;
  }
  return { created: true, adminSecret };
}
