// The one list of config fields whose strings may hold ${ENV} and ${secret:NAME} references: the secret-bearing and URL
// fields. A reference anywhere else would put a secret into a name, a prompt or a path that read paths return and
// providers receive, so it is refused naming the key (load.ts); config.read shows a URL's secret reference as written.
import { redactUrlPassword } from './storage-schema.js';

export interface ReferenceField {
  /** Dotted config path; `*` stands for any key of a map or position of a list. */
  path: string;
  kind: 'secret' | 'url';
}

export const REFERENCE_FIELDS: readonly ReferenceField[] = [
  { path: 'gateway.tokens.*.secret', kind: 'secret' },
  { path: 'gateway.webhook.secret', kind: 'secret' },
  { path: 'providers.*.apiKey', kind: 'secret' },
  { path: 'providers.*.baseUrl', kind: 'url' },
  { path: 'storage.url', kind: 'url' },
  { path: 'coordination.url', kind: 'url' },
  { path: 'mcp.servers.*.url', kind: 'url' },
  { path: 'mcp.servers.*.headers.*', kind: 'secret' },
  { path: 'mcp.servers.*.env.*', kind: 'secret' },
  { path: 'channels.*.token', kind: 'secret' },
  { path: 'channels.*.botToken', kind: 'secret' },
  { path: 'channels.*.signingSecret', kind: 'secret' },
  { path: 'channels.*.appToken', kind: 'secret' },
  { path: 'channels.*.webhookSecret', kind: 'secret' },
  { path: 'channels.*.imap.password', kind: 'secret' },
  { path: 'channels.*.smtp.password', kind: 'secret' },
  { path: 'channels.*.apiBaseUrl', kind: 'url' },
  { path: 'otel.endpoint', kind: 'url' },
  { path: 'otel.headers.*', kind: 'secret' },
  { path: 'a2a.remotes.*.url', kind: 'url' },
  { path: 'a2a.remotes.*.headers.*', kind: 'secret' },
];

const PATTERNS = REFERENCE_FIELDS.map((field) => ({ ...field, segments: field.path.split('.') }));

/** `${NAME}` from the environment, or `${secret:NAME}` from secrets.yaml (DESIGN §3 "secrets and config history"). */
export const REFERENCE = /\$\{(?:secret:([A-Za-z0-9_.-]+)|([A-Za-z_][A-Za-z0-9_]*))\}/g;

export const MISPLACED_REFERENCE = 'references (${…}) are allowed only in secret and URL fields';

const ANY_REFERENCE = new RegExp(REFERENCE.source);
const SECRET_REFERENCE = /\$\{secret:[A-Za-z0-9_.-]+\}/;

export function holdsReference(text: string): boolean {
  return ANY_REFERENCE.test(text);
}

export function holdsSecretReference(text: string): boolean {
  return SECRET_REFERENCE.test(text);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The reference field at `path` (keys and list positions from the config's root), if it is one. */
export function referenceFieldAt(path: readonly (string | number)[]): ReferenceField | undefined {
  return PATTERNS.find(
    ({ segments }) =>
      segments.length === path.length &&
      segments.every((segment, index) => segment === '*' || segment === String(path[index])),
  );
}

/**
 * `shown` (a redacted effective config) with every URL field whose raw value names a secret shown as written in `raw`,
 * `${secret:NAME}` and all (a password in it masked), instead of resolved: a secret inside a URL is never returned (secret fields already read "***").
 */
export function showSecretReferences<T>(shown: T, raw: unknown): T {
  const visit = (value: unknown, source: unknown, path: (string | number)[]): unknown => {
    if (typeof value === 'string') {
      return referenceFieldAt(path)?.kind === 'url' && typeof source === 'string' && holdsSecretReference(source)
        ? redactUrlPassword(source)
        : value;
    }
    if (Array.isArray(value))
      return value.map((item, index) =>
        visit(item, Array.isArray(source) ? source[index] : undefined, [...path, index]),
      );
    if (isRecord(value)) {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [
          key,
          visit(item, isRecord(source) && Object.hasOwn(source, key) ? source[key] : undefined, [...path, key]),
        ]),
      );
    }
    return value;
  };
  return visit(shown, raw, []) as T;
}
