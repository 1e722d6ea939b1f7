// Renders docs/config-reference.md from the config schema: every key with its type, default and bounds.
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { configSchema } from '../src/config/index.js';

/** Where the generated reference is checked in. */
export const CONFIG_REFERENCE_PATH = fileURLToPath(new URL('../docs/config-reference.md', import.meta.url));

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
}

export interface ConfigKey {
  path: string;
  type: string;
  default: string;
  bounds: string;
}

const isObjectSchema = (schema: JsonSchema) => schema.properties !== undefined;

function typeOf(schema: JsonSchema): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum !== undefined) return schema.enum.map((value) => JSON.stringify(value)).join(' \\| ');
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants !== undefined) return [...new Set(variants.map(typeOf))].join(' \\| ');
  if (schema.type === 'array') {
    const item = schema.items === undefined ? 'any' : typeOf(schema.items);
    return item.includes(' ') ? `(${item})[]` : `${item}[]`;
  }
  if (isObjectSchema(schema)) return 'object';
  if (schema.type === 'object') return 'map';
  if (Array.isArray(schema.type)) return schema.type.join(' \\| ');
  return schema.type ?? 'any';
}

function boundsOf(schema: JsonSchema): string {
  const bounds: string[] = [];
  const low = schema.minimum ?? schema.exclusiveMinimum;
  const high = schema.maximum ?? schema.exclusiveMaximum;
  if (low !== undefined) bounds.push(`${schema.exclusiveMinimum === undefined ? '≥' : '>'} ${low}`);
  // Zod's integers carry the safe-integer maximum; it bounds nothing a config would hold.
  if (high !== undefined && high !== Number.MAX_SAFE_INTEGER)
    bounds.push(`${schema.exclusiveMaximum === undefined ? '≤' : '<'} ${high}`);
  if (schema.minLength !== undefined) bounds.push(`length ≥ ${schema.minLength}`);
  if (schema.maxLength !== undefined) bounds.push(`length ≤ ${schema.maxLength}`);
  if (schema.minItems !== undefined) bounds.push(`items ≥ ${schema.minItems}`);
  if (schema.maxItems !== undefined) bounds.push(`items ≤ ${schema.maxItems}`);
  if (schema.pattern !== undefined) bounds.push(`matches \`${schema.pattern.replace(/\|/g, '\\|')}\``);
  return bounds.join(', ');
}

const shown = (value: unknown) =>
  value === undefined ? '' : `\`${JSON.stringify(value).replace(/\|/g, '\\|').slice(0, 80)}\``;

/** The object schemas a key can hold: itself, or the object variants of a union. */
function objectVariants(schema: JsonSchema): JsonSchema[] {
  if (isObjectSchema(schema)) return [schema];
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].flatMap(objectVariants);
}

function walk(schema: JsonSchema, path: string, keys: ConfigKey[]): void {
  for (const variant of objectVariants(schema))
    for (const [name, child] of Object.entries(variant.properties ?? {})) {
      const childPath = path === '' ? name : `${path}.${name}`;
      keys.push({ path: childPath, type: typeOf(child), default: shown(child.default), bounds: boundsOf(child) });
      walk(child, childPath, keys);
      if (child.type === 'array' && child.items !== undefined) walk(child.items, `${childPath}[]`, keys);
      if (typeof child.additionalProperties === 'object') walk(child.additionalProperties, `${childPath}.<name>`, keys);
    }
}

export function collectConfigKeys(): ConfigKey[] {
  const schema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const keys: ConfigKey[] = [];
  walk(schema, '', keys);
  // A key that several variants of a union hold (storage.kind, channels.<name>.mode) is one row of their types.
  const byPath = new Map<string, ConfigKey>();
  for (const key of keys) {
    const known = byPath.get(key.path);
    if (known === undefined) byPath.set(key.path, { ...key });
    else {
      const types = new Set([...known.type.split(' \\| '), ...key.type.split(' \\| ')]);
      known.type = [...types].join(' \\| ');
      known.default ||= key.default;
      known.bounds ||= key.bounds;
    }
  }
  return [...byPath.values()];
}

export function generateConfigReference(): string {
  return [
    '# Configuration reference',
    '',
    'Generated from the config schema (`src/config/`) by `npm run docs:config`; do not edit by hand. What the keys',
    'mean, with examples: [configuration.md](configuration.md) and the capability guides. `<name>` stands for a key',
    'you choose (an agent id, a provider name); `[]` for each item of a list. Every `…Ms` key is whole milliseconds.',
    '',
    '| Key | Type | Default | Bounds |',
    '|---|---|---|---|',
    ...collectConfigKeys().map((key) => `| \`${key.path}\` | ${key.type} | ${key.default} | ${key.bounds} |`),
    '',
  ].join('\n');
}
