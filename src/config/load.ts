// Reads the YAML config file, substitutes ${ENV_VAR} in string values and validates it against the schema.
import { readFile } from 'node:fs/promises';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { z } from 'zod';
import { findForbiddenKey } from './object-keys.js';
import { configSchema, type GatewayConfig } from './schema.js';

/** A config file that cannot be used; the message names the file and every offending key. */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly problems: string[] = [],
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface LoadedConfig {
  config: GatewayConfig;
  /** Environment variables referenced by the file but not set (substituted as empty strings). */
  missingEnv: string[];
}

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Replaces `${NAME}` in every string of a parsed document; `missing` collects unset names. */
export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, missing: Set<string>): unknown {
  if (typeof value === 'string') {
    return value.replace(ENV_REFERENCE, (_match, name: string) => {
      const found = env[name];
      if (found === undefined) missing.add(name);
      return found ?? '';
    });
  }
  if (Array.isArray(value)) return value.map((item) => substituteEnv(item, env, missing));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, substituteEnv(item, env, missing)]),
    );
  }
  return value;
}

/** `gateway.tokens[0].secret: must be at least 32 characters` for each issue. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const path = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const where = path === '' ? '' : `${path}.`;
      return issue.keys.map((key) => `${where}${key}: unknown key`).join('; ');
    }
    return `${path === '' ? '(root)' : path}: ${issue.message}`;
  });
}

export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text;
}

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

export function parseConfigText(text: string, source: string, env: NodeJS.ProcessEnv): LoadedConfig {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    const detail = error instanceof YAMLParseError ? error.message : String(error);
    throw new ConfigError(`Invalid YAML in ${source}: ${detail}`);
  }
  const missing = new Set<string>();
  const substituted = substituteEnv(document, env, missing);
  return { config: validateConfig(substituted, source), missingEnv: [...missing].sort() };
}

export async function loadConfigFile(path: string, env: NodeJS.ProcessEnv): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return parseConfigText(text, path, env);
}
