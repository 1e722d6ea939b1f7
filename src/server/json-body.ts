// Parses the JSON request bodies of every HTTP surface: bad JSON, nesting deeper than MAX_JSON_DEPTH and a
// `__proto__` key are refused with 400 before any route sees the body.
import type { FastifyInstance } from 'fastify';
import { findForbiddenKey, formatPath } from '../config/index.js';
import { GatewayError, jsonTooDeep } from '../errors.js';
import { canExceedJsonDepth, exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';

export interface JsonBodyOptions {
  /** What a body that is not JSON is told; each surface keeps its own wording. */
  syntaxMessage?: string;
  /** An empty body parses as `undefined` instead of being refused. */
  isEmptyAllowed?: boolean;
}

const SYNTAX_MESSAGE = "Body is not valid JSON but content-type is set to 'application/json'";
const EMPTY_MESSAGE = "Body cannot be empty when content-type is set to 'application/json'";
/** A `__proto__` key can only be present when the text spells it, plain or with \u escapes. */
const PROTO_HINT = /__proto__|\\u/;

export function parseJsonBody(
  text: string,
  { syntaxMessage = SYNTAX_MESSAGE, isEmptyAllowed = false }: JsonBodyOptions = {},
): unknown {
  if (isEmptyAllowed && text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new GatewayError('invalid_request', syntaxMessage);
  }
  if (canExceedJsonDepth(text) && exceedsJsonDepth(value, MAX_JSON_DEPTH)) throw jsonTooDeep('Body', MAX_JSON_DEPTH);
  // JSON.parse makes `__proto__` an own key; merged into another object it would replace that object's prototype.
  if (PROTO_HINT.test(text)) {
    const found = findForbiddenKey(value, (key) => key === '__proto__');
    if (found !== undefined)
      throw new GatewayError(
        'invalid_request',
        `Body contains the forbidden key '__proto__' at ${formatPath(found.segments)}`,
      );
  }
  return value;
}

/** Replaces Fastify's `application/json` parser of `scope` (and the plugins it registers) with parseJsonBody. */
export function useJsonBodyParser(scope: FastifyInstance): void {
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, function parseJson(_request, body, done) {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    // Fastify's own wording for an empty JSON body, kept for clients that match on it.
    if (text.length === 0) {
      done(new GatewayError('invalid_request', EMPTY_MESSAGE), undefined);
      return;
    }
    try {
      done(null, parseJsonBody(text));
    } catch (error) {
      done(error instanceof Error ? error : new GatewayError('invalid_request', SYNTAX_MESSAGE), undefined);
    }
  });
}
