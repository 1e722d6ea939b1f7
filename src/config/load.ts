// Reads the YAML config file, substitutes ${ENV_VAR} and ${secret:NAME} in its secret and URL fields (refusing them
// anywhere else) and validates it against the schema.
import { readFile } from 'node:fs/promises';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from './config-error.js';
import { findForbiddenKey } from './object-keys.js';
import { holdsReference, MISPLACED_REFERENCE, REFERENCE, referenceFieldAt } from './reference-fields.js';
import { readSecrets } from './secrets-file.js';
import { configSchema, type GatewayConfig } from './schema.js';
import { bracketPath, readIssues } from '../errors.js';

export interface LoadedConfig {
  config: GatewayConfig;
  /**
   * References the file makes that resolve to nothing (substituted as empty strings): environment variable
   * names, and `secret:NAME` for names secrets.yaml does not hold.
   */
  missingEnv: string[];
}

const NO_SECRETS: ReadonlyMap<string, string> = new Map();

export interface ReferenceValues {
  env: NodeJS.ProcessEnv;
  secrets?: ReadonlyMap<string, string>;
  /** Collects the names that resolve to nothing (`NAME` or `secret:NAME`), which read as empty strings. */
  missing?: Set<string>;
  /** Collects the names of the `${secret:NAME}` references that resolved (secret:accessed). */
  resolved?: Set<string>;
}

/** Replaces `${NAME}` and `${secret:NAME}` in one string, wherever it comes from. */
export function resolveText(text: string, { env, secrets = NO_SECRETS, missing, resolved }: ReferenceValues): string {
  if (!text.includes('${')) return text;
  return text.replace(REFERENCE, (_match, secretName: string | undefined, envName: string | undefined) => {
    const found = secretName === undefined ? env[envName ?? ''] : secrets.get(secretName);
    if (found === undefined) missing?.add(secretName === undefined ? (envName ?? '') : `secret:${secretName}`);
    else if (secretName !== undefined) resolved?.add(secretName);
    return found ?? '';
  });
}

/**
 * Replaces the references in the reference fields (reference-fields.ts) of a parsed document, or of the part of one at
 * `at`; a reference in any other string is refused with a ConfigError naming every such key, before anything resolves.
 */
export function substituteReferences(
  value: unknown,
  values: ReferenceValues,
  source: string,
  at: readonly (string | number)[] = [],
): unknown {
  const misplaced: string[] = [];
  const visit = (node: unknown, path: (string | number)[]): unknown => {
    if (typeof node === 'string') {
      if (!holdsReference(node)) return node;
      if (referenceFieldAt(path) === undefined) {
        misplaced.push(`${formatPath(path)}: ${MISPLACED_REFERENCE}`);
        return node;
      }
      return resolveText(node, values);
    }
    if (Array.isArray(node)) return node.map((item, index) => visit(item, [...path, index]));
    if (node !== null && typeof node === 'object')
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, visit(item, [...path, key])]));
    return node;
  };
  const substituted = visit(value, [...at]);
  if (misplaced.length > 0)
    throw new ConfigError(`Invalid configuration in ${source}:\n  ${misplaced.join('\n  ')}`, misplaced);
  return substituted;
}

/** What a name of LoadedConfig.missingEnv means, for warnings. */
export function describeMissingReference(name: string): string {
  return name.startsWith('secret:')
    ? `secret ${name.slice('secret:'.length)} is not in secrets.yaml`
    : `environment variable ${name} is not set`;
}

/** `gateway.tokens[0].secret: must be at least 32 characters` for each issue. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) =>
    readIssues([issue])
      .map(({ path, problem, message }) =>
        problem === 'unknown_key'
          ? `${formatPath(path)}: unknown key`
          : `${path.length === 0 ? '(root)' : formatPath(path)}: ${message}`,
      )
      .join('; '),
  );
}

export const formatPath = bracketPath;

/** Validates an already-parsed document (after env substitution). Throws ConfigError. */
export function validateConfig(document: unknown, source: string): GatewayConfig {
  // zod skips `__proto__` keys and takes `constructor`/`prototype` as names; none may reach the config.
  const forbidden = findForbiddenKey(document);
  if (forbidden !== undefined) {
    const problem = `${formatPath(forbidden.segments)}: the key '${forbidden.key}' is not allowed`;
    throw new ConfigError(`Invalid configuration in ${source}:\n  ${problem}`, [problem]);
  }
  const result = configSchema.safeParse(document ?? {});
  if (!result.success) {
    const problems = formatIssues(result.error.issues);
    throw new ConfigError(`Invalid configuration in ${source}:\n  ${problems.join('\n  ')}`, problems);
  }
  return result.data;
}

export function parseConfigText(
  text: string,
  source: string,
  env: NodeJS.ProcessEnv,
  secrets: ReadonlyMap<string, string> = NO_SECRETS,
): LoadedConfig {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    const detail = error instanceof YAMLParseError ? error.message : String(error);
    throw new ConfigError(`Invalid YAML in ${source}: ${detail}`);
  }
  const missing = new Set<string>();
  const substituted = substituteReferences(document, { env, secrets, missing }, source);
  try {
    return { config: validateConfig(substituted, source), missingEnv: [...missing].sort() };
  } catch (error) {
    // An unresolved reference reads as an empty string; saying so explains "must be at least 32 characters".
    if (!(error instanceof ConfigError) || missing.size === 0) throw error;
    const hints = [...missing].sort().map(describeMissingReference);
    throw new ConfigError(`${error.message}\n  (${hints.join('; ')})`, error.problems);
  }
}

/** `secretsPath`: the secrets.yaml that `${secret:NAME}` references resolve from (absent file: none). */
export async function loadConfigFile(
  path: string,
  env: NodeJS.ProcessEnv,
  secretsPath?: string,
): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return parseConfigText(text, path, env, secretsPath === undefined ? NO_SECRETS : await readSecrets(secretsPath));
}
