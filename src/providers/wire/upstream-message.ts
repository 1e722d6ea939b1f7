// The upstream's own error message as it may travel with an error (clients, reports, evidence): secret-looking strings
// masked, whitespace collapsed, at most 500 characters (DESIGN §3 "upstream failures").
import { CREDENTIAL_KEYS, REDACTED, SECRET_KEYS } from '../../config/index.js';

/** DESIGN §3: at most this many characters of the upstream's message travel with an error. */
export const UPSTREAM_MESSAGE_MAX_CHARS = 500;

/** Configured secrets shorter than this are not searched for literally: they would mask ordinary words. */
const MIN_LITERAL_SECRET_CHARS = 8;

/** Key names whose value is a secret in `name: value`, `name=value` or `"name": "value"`; the config's own names first. */
const SECRET_NAMES = [
  ...SECRET_KEYS,
  ...CREDENTIAL_KEYS,
  'api-key',
  'apikey',
  'x-api-key',
  'x-goog-api-key',
  'access_token',
  'refresh_token',
  'client_secret',
  'passwd',
];

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Replacements, applied in order; each keeps what says where the secret was and masks the secret itself. */
const SECRET_PATTERNS: readonly [RegExp, string][] = [
  // user:password@ in a URL.
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+(?::[^\s/@]*)?@/gi, `$1${REDACTED}@`],
  // Credentials in a query string (Gemini's ?key=, signed URLs).
  [/([?&](?:key|api_key|apikey|token|access_token|sig|signature|password)=)[^&\s"'#]+/gi, `$1${REDACTED}`],
  // An Authorization header value.
  [/\b(Bearer|Basic|Token)\s+[\w.~+/=-]{6,}/gi, `$1 ${REDACTED}`],
  // name: value pairs whose name is a secret's (an Authorization value masked above keeps its scheme).
  [
    new RegExp(
      `((?:^|[^\\w-])["']?(?:${SECRET_NAMES.map(escapeRegExp).join('|')})["']?\\s*[:=]\\s*["']?)(?!\\*\\*\\*|(?:Bearer|Basic|Token) \\*\\*\\*)[^\\s"',;&)}\\]]{4,}`,
      'gi',
    ),
    `$1${REDACTED}`,
  ],
  // Key formats of the common providers and hosts: OpenAI and Anthropic, Stripe-style, Google, GitHub, Slack, AWS, JWTs.
  [/\b(?:sk|pk|rk)-[\w-]{10,}/g, REDACTED],
  [/\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{10,}/g, REDACTED],
  [/\bAIza[\w-]{20,}/g, REDACTED],
  [/\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,})/g, REDACTED],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, REDACTED],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
  [/\beyJ[\w-]{5,}\.[\w-]{5,}\.[\w-]*/g, REDACTED],
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A long run of letters and digits mixed (24 or more without a separator), with the parts joined to it by - or _. */
const OPAQUE_RUN = /[\w-]*[A-Za-z0-9]{24,}[\w-]*/g;

/** Opaque tokens of unknown format: a long run mixing letters and digits. UUIDs (request ids) stay readable. */
function maskOpaqueRuns(text: string): string {
  return text.replace(OPAQUE_RUN, (run) =>
    UUID.test(run) || !/\d/.test(run) || !/[A-Za-z]/.test(run) ? run : REDACTED,
  );
}

/** `text` with every secret-looking string masked as "***". */
export function maskSecrets(text: string): string {
  const masked = SECRET_PATTERNS.reduce(
    (current, [pattern, replacement]) => current.replace(pattern, replacement),
    text,
  );
  return maskOpaqueRuns(masked);
}

/** `text` with each of `values` (the provider's configured key, say) masked wherever it appears literally. */
export function maskLiterals(text: string, values: readonly (string | undefined)[]): string {
  return values.reduce<string>(
    (current, value) =>
      value === undefined || value.length < MIN_LITERAL_SECRET_CHARS ? current : current.split(value).join(REDACTED),
    text,
  );
}

/** An upstream message fit to travel: secrets masked, whitespace collapsed, capped; undefined when nothing is left. */
export function upstreamMessageOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const clean = maskSecrets(text).replace(/\s+/g, ' ').trim();
  if (clean.length === 0) return undefined;
  return clean.length > UPSTREAM_MESSAGE_MAX_CHARS ? `${clean.slice(0, UPSTREAM_MESSAGE_MAX_CHARS)}…` : clean;
}
