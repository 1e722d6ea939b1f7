// Pure edits of the raw config document: merge patches, dotted sets, keeping redacted secrets and ${ENV} or
// ${secret:NAME} references, and carrying a new value into the YAML Document so comments and layout survive.
import { isDeepStrictEqual } from 'node:util';
import { Document, isMap, isNode, isScalar, isSeq, parse, type YAMLMap, type YAMLSeq } from 'yaml';
import { forbiddenKey, GatewayError } from '../errors.js';
import { resolveText } from './load.js';
import { isForbiddenKey } from './object-keys.js';
import { isInSecretMap, isSecretKey, REDACTED } from './redact.js';
import { keepUnchangedSections } from './section-splice.js';
import { redactUrlPassword } from './storage-schema.js';

export type RawConfig = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function assertSafeKey(key: string, path: string): void {
  if (isForbiddenKey(key)) throw forbiddenKey(path, key);
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/**
 * RFC 7386 merge patch: objects merge key by key, `null` removes a key, anything else (arrays included)
 * replaces the value.
 */
export function mergePatch(target: unknown, patch: unknown, path = ''): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    assertSafeKey(key, join(path, key));
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value, join(path, key));
  }
  return result;
}

/** `gateway.tokens.0.secret` → ['gateway', 'tokens', '0', 'secret']; refuses empty and unsafe segments. */
export function splitKey(section: string, key: string): string[] {
  const segments = [section, ...key.split('.')];
  segments.forEach((segment, index) => {
    if (segment === '')
      throw new GatewayError('invalid_params', `'key' has an empty segment: '${key}'`, { param: 'key' });
    assertSafeKey(segment, segments.slice(0, index + 1).join('.'));
  });
  return segments;
}

export function getPath(root: unknown, segments: readonly string[]): unknown {
  let node: unknown = root;
  for (const segment of segments) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isPlainObject(node)) node = Object.hasOwn(node, segment) ? node[segment] : undefined;
    else return undefined;
  }
  return node;
}

/** Sets `value` at `segments` in a deep copy of `root`, creating objects on the way; `null` removes the key. */
export function setPath(root: RawConfig, segments: readonly string[], value: unknown): RawConfig {
  const copy = structuredClone(root);
  let node: unknown = copy;
  segments.forEach((segment, index) => {
    const isLast = index === segments.length - 1;
    const where = segments.slice(0, index + 1).join('.');
    if (Array.isArray(node)) {
      const position = Number(segment);
      if (!Number.isInteger(position) || position < 0 || position > node.length) {
        throw new GatewayError('invalid_params', `${where}: no such list position`, { param: 'key' });
      }
      if (isLast) node[position] = value;
      else node = node[position] = isPlainObject(node[position]) || Array.isArray(node[position]) ? node[position] : {};
      return;
    }
    if (!isPlainObject(node))
      throw new GatewayError('invalid_params', `${where}: parent is not an object`, { param: 'key' });
    if (isLast) {
      if (value === null) delete node[segment];
      else node[segment] = value;
      return;
    }
    const child = node[segment];
    node = node[segment] = isPlainObject(child) || Array.isArray(child) ? child : {};
  });
  return copy;
}

/**
 * Carries secrets from `previous` into `next`:
 * - "***" under a secret key (a read-modify-write of a redacted config) keeps the stored value;
 * - a string equal to what a stored `${ENV}` or `${secret:NAME}` reference resolves to keeps the reference,
 *   so a resolved secret is never written to the file in its place;
 * - a `url` equal to the stored one with its password masked keeps the stored one.
 * List items are matched by `id` when they have one (tokens), else by position.
 */
export function keepSecrets(
  next: unknown,
  previous: unknown,
  env: NodeJS.ProcessEnv,
  secrets: ReadonlyMap<string, string> = new Map(),
): unknown {
  const resolve = (text: string): string => resolveText(text, { env, secrets });
  return keep(next, previous, resolve, '', '');
}

function keep(next: unknown, previous: unknown, resolve: (text: string) => string, path: string, key: string): unknown {
  if (typeof next === 'string') {
    if (next === REDACTED && (isSecretKey(key) || isInSecretMap(path.split('.')))) {
      if (typeof previous === 'string') return previous;
      throw new GatewayError(
        'invalid_params',
        `${path}: "${REDACTED}" is the redaction placeholder and there is no stored secret to keep`,
        { param: path },
      );
    }
    if (typeof previous === 'string' && previous.includes('${') && resolve(previous) === next) return previous;
    // A `url` read back with its password masked (redact.ts) keeps the stored URL, password and all.
    if (key === 'url' && typeof previous === 'string' && next !== previous) {
      if (redactUrlPassword(resolve(previous)) === next) return previous;
    }
    return next;
  }
  if (Array.isArray(next)) {
    const before = Array.isArray(previous) ? previous : [];
    return next.map((item, index) => keep(item, matchItem(item, before, index), resolve, join(path, index), ''));
  }
  if (isPlainObject(next)) {
    const before = isPlainObject(previous) ? previous : {};
    return Object.fromEntries(
      Object.entries(next).map(([name, value]) => [name, keep(value, before[name], resolve, join(path, name), name)]),
    );
  }
  return next;
}

function matchItem(item: unknown, before: readonly unknown[], index: number): unknown {
  if (isPlainObject(item) && typeof item.id === 'string') {
    return before.find((candidate) => isPlainObject(candidate) && candidate.id === item.id);
  }
  return before[index];
}

/** Top-level keys whose raw value differs between the two documents, sorted. */
export function changedSections(previous: RawConfig, next: RawConfig): string[] {
  const keys = new Set([...Object.keys(previous), ...Object.keys(next)]);
  return [...keys].filter((key) => !isDeepStrictEqual(previous[key], next[key])).sort();
}

/**
 * Makes `doc` hold `next` while touching only the nodes that changed, so comments, key order and
 * flow/block style of everything else stay as the user wrote them. Returns the document's text; with `source` (the
 * text `doc` was parsed from), the sections `next` leaves unchanged keep that text byte for byte.
 */
export function renderDocument(doc: Document, next: RawConfig, source?: string): string {
  const edited = doc.clone();
  if (isMap(edited.contents)) syncMap(edited, edited.contents, next);
  else edited.contents = edited.createNode(next);
  const text = edited.toString();
  // Anchors and aliases can make an in-place edit show up in two places; the check below catches that
  // and falls back to a fresh document (comments lost, content exact).
  if (isDeepStrictEqual(parse(text) ?? {}, next))
    return source === undefined ? text : keepUnchangedSections(source, text, next);
  return new Document(next).toString();
}

function syncMap(doc: Document, map: YAMLMap, next: RawConfig): void {
  for (const pair of [...map.items]) {
    const key = isScalar(pair.key) ? pair.key.value : pair.key;
    if (typeof key !== 'string' || !Object.hasOwn(next, key)) map.delete(pair.key);
  }
  for (const [key, value] of Object.entries(next)) {
    const current: unknown = map.get(key, true);
    map.set(key, syncNode(doc, current, value));
  }
}

function syncSeq(doc: Document, seq: YAMLSeq, next: readonly unknown[]): void {
  seq.items = next.map((value, index) => syncNode(doc, seq.items[index], value));
}

/** `node` made to hold `value` in place where it can (its comments and style kept), else a new node of `value`. */
export function syncNode(doc: Document, node: unknown, value: unknown): unknown {
  if (isMap(node) && isPlainObject(value)) {
    syncMap(doc, node, value);
    return node;
  }
  if (isSeq(node) && Array.isArray(value)) {
    syncSeq(doc, node, value);
    return node;
  }
  if (isScalar(node) && (value === null || typeof value !== 'object')) {
    if (node.value !== value) node.value = value;
    return node;
  }
  if (isNode(node) && isDeepStrictEqual(node.toJS(doc), value)) return node;
  return doc.createNode(value);
}
