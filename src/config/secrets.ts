// Moves literal secrets out of the config document (DESIGN §3 "secrets and config history"): each value under a
// secret key goes to secrets.yaml and the document gets a ${secret:NAME} reference, so no commit holds a secret.
import { parseDocument } from 'yaml';
import { isPlainObject, renderDocument, type RawConfig } from './config-edit.js';
import { isInSecretMap, isSecretKey } from './redact.js';
import type { SecretValues } from './secrets-file.js';

export interface ExternalizedSecrets {
  raw: RawConfig;
  /** The secrets before, plus every value moved out now; names already in use keep their values. */
  secrets: Map<string, string>;
  /** How many values were moved out. */
  moved: number;
}

/** A text that the history fallback replaces verbatim must be at least this long, so it cannot match by chance. */
const MIN_VERBATIM_SECRET_LENGTH = 8;

/** A secret value written as such: not empty and not already a reference (`${ENV}` or `${secret:NAME}`). */
export function isLiteralSecret(value: string): boolean {
  return value !== '' && !value.includes('${');
}

export function secretReference(name: string): string {
  return `\${secret:${name}}`;
}

/**
 * The name a value gets: the config path of its key (list items by their `id`), e.g.
 * `gateway.tokens.admin.secret`; another value at the same path gets `-2`, `-3`…, so every commit that
 * ever referred to a name still resolves to the value it had (a rollback restores it).
 */
function nameFor(base: string, value: string, secrets: Map<string, string>): string {
  for (let index = 1; index <= secrets.size + 1; index += 1) {
    const name = index === 1 ? base : `${base}-${index}`;
    const stored = secrets.get(name);
    if (stored === undefined) {
      secrets.set(name, value);
      return name;
    }
    if (stored === value) return name;
  }
  throw new RangeError('secret names exhausted');
}

function segmentName(segment: string): string {
  return segment.replace(/[^A-Za-z0-9_-]+/g, '_');
}

/** Replaces every literal secret of `raw` with a reference; the input objects are not changed. */
export function externalizeSecrets(raw: RawConfig, secrets: SecretValues): ExternalizedSecrets {
  const next = new Map(secrets);
  let moved = 0;

  function visit(value: unknown, path: readonly string[], key: string): unknown {
    if (typeof value === 'string') {
      if (!(isSecretKey(key) || isInSecretMap(path)) || !isLiteralSecret(value)) return value;
      moved += 1;
      return secretReference(nameFor(path.join('.'), value, next));
    }
    if (Array.isArray(value)) {
      return value.map((item, index) => {
        const label = isPlainObject(item) && typeof item.id === 'string' ? item.id : String(index);
        return visit(item, [...path, segmentName(label)], '');
      });
    }
    if (isPlainObject(value)) {
      return Object.fromEntries(
        Object.entries(value).map(([name, item]) => [name, visit(item, [...path, segmentName(name)], name)]),
      );
    }
    return value;
  }

  const result = visit(raw, [], '');
  return { raw: isPlainObject(result) ? result : raw, secrets: next, moved };
}

/**
 * The config file's text with its literal secrets moved out, comments and layout kept: used on every commit of
 * an old history. A text that no longer parses loses the secrets `secrets` already knows wherever they appear.
 */
export function externalizeSecretsInText(
  text: string,
  secrets: SecretValues,
): { text: string; secrets: Map<string, string> } {
  const doc = parseDocument(text);
  const raw: unknown = doc.errors.length === 0 ? (doc.toJS() ?? {}) : undefined;
  if (isPlainObject(raw)) {
    const externalized = externalizeSecrets(raw, secrets);
    return {
      text: externalized.moved === 0 ? text : renderDocument(doc, externalized.raw, text),
      secrets: externalized.secrets,
    };
  }
  let replaced = text;
  for (const [name, value] of secrets) {
    if (value.length >= MIN_VERBATIM_SECRET_LENGTH) replaced = replaced.split(value).join(secretReference(name));
  }
  return { text: replaced, secrets: new Map(secrets) };
}
