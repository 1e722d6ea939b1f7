// Media ids and content types: the spec's id rule, new ids named after their type, and the type a file is served with.
import { mime } from '@fastify/send';
import { invalidParams } from '../errors.js';

/** Spec "Media routes": only letters, digits, dot, hyphen and underscore, so no id can name a path outside media.dir. */
const MEDIA_ID = /^[A-Za-z0-9._-]+$/;

/** Saved ids never start with a dot, so `.` and `..` (made only of allowed characters) can never be stored. */
export function isMediaId(value: string): boolean {
  return MEDIA_ID.test(value) && !value.startsWith('.');
}

/** Served when neither the record nor the extension names a type; nosniff keeps browsers from guessing. */
const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

/** Longest content type a save accepts (RFC 6838 caps each name at 127 characters; parameters take the rest). */
const MAX_CONTENT_TYPE_CHARS = 255;

const TOKEN = '[A-Za-z0-9!#$&^_.+-]+';
/** `type/subtype` with optional `; name=value` parameters (RFC 9110 §8.3.1); no CR or LF can reach a header. */
const CONTENT_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"\\\\\\r\\n]*"))*$`);

/** The type a save records: null for '' (the extension decides when served); a malformed one is refused. */
export function recordedContentType(contentType: string): string | null {
  const trimmed = contentType.trim();
  if (trimmed === '') return null;
  if (trimmed.length > MAX_CONTENT_TYPE_CHARS || !CONTENT_TYPE.test(trimmed)) {
    throw invalidParams('contentType must be a media type like image/png', 'contentType');
  }
  // Type and subtype are case-insensitive; lower case lets the extension lookup and clients compare them.
  const [essence = '', ...parameters] = trimmed.split(';');
  return [essence.toLowerCase(), ...parameters].join(';');
}

/** A new id: the injected random id plus the extension of the type, so the file on disk also says what it holds. */
export function newMediaId(newId: () => string, contentType: string | null): string {
  const extension = contentType === null ? null : mime.getExtension(contentType.split(';')[0] ?? '');
  const id = `${newId()}${extension === null ? '' : `.${extension}`}`;
  if (!isMediaId(id)) throw new TypeError(`media ids must be letters, digits, dot, hyphen or underscore: got '${id}'`);
  return id;
}

/** Spec: the content type comes from the record, else from the file extension. */
export function servedContentType(id: string, recorded: string | null): string {
  return recorded ?? mime.getType(id) ?? FALLBACK_CONTENT_TYPE;
}
