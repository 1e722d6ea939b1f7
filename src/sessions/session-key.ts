// Session keys: the string form `tenantId:userId:channelId[:peerId]`, the object form of agent.execute, and kinds.
import { z } from 'zod';
import { GatewayError } from '../errors.js';
import type { SessionKind } from '../store/index.js';
import type { ParsedSessionKey, SessionKeyParts } from './types.js';
import { DEFAULT_TENANT } from '../config/index.js';

/** The tenant a key gets when its creator names none (DESIGN §3 "string session keys"). */
export { DEFAULT_TENANT };

/** The channel id of every session created by session.spawn: `<tenant>:<user>:subagent:<runId>`. */
export const SUB_AGENT_CHANNEL = 'subagent';

/** Longest accepted part; keys are primary keys and appear in logs and events. */
export const MAX_KEY_PART_LENGTH = 256;

/**
 * Characters a part may not hold: controls (Cc, NUL among them), format characters (Cf: zero-width space, joiners,
 * word joiner, BOM, soft hyphen), lone surrogates and line or paragraph separators. Each prints as nothing or looks
 * like something else, so `alice` and `ali\u200Bce` would be two sessions that read alike in every listing and log.
 */
const HIDDEN_CHARACTER = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

/** Why one part is not valid for its characters (position from 1), or undefined. */
function partCharacterProblem(part: string, position?: number): string | undefined {
  const where = position === undefined ? '' : ` in part ${position}`;
  const hidden = HIDDEN_CHARACTER.exec(part)?.[0];
  if (hidden !== undefined) {
    return `has a control or invisible character U+${(hidden.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}${where}`;
  }
  // A composed and a decomposed spelling of one name are one user: only the composed (NFC) one is accepted.
  if (part !== part.normalize('NFC'))
    return position === undefined ? 'is not in Unicode NFC form' : `part ${position} is not in Unicode NFC form`;
  return undefined;
}

const keyPart = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_KEY_PART_LENGTH)
  .refine((part) => !part.includes(':'), 'must not contain ":"')
  .superRefine(function checkPartCharacters(part, ctx) {
    const problem = partCharacterProblem(part);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });

/** The object form accepted by agent.execute (spec: "Session keys"). Strict: unknown fields are refused. */
export const sessionKeyObjectSchema = z.strictObject({
  tenantId: keyPart,
  userId: keyPart,
  channelId: keyPart,
  peerId: keyPart.optional(),
});

/** Why `key` is not a valid string key, or undefined when it is. */
export function sessionKeyProblem(key: string): string | undefined {
  const parts = key.split(':');
  if (parts.length < 3 || parts.length > 4) {
    return `must be tenantId:userId:channelId[:peerId] (got ${parts.length} part${parts.length === 1 ? '' : 's'})`;
  }
  const empty = parts.findIndex((part) => part.length === 0);
  if (empty !== -1) return `has an empty part at position ${empty + 1}`;
  if (parts.some((part) => part.length > MAX_KEY_PART_LENGTH))
    return `has a part longer than ${MAX_KEY_PART_LENGTH} characters`;
  for (const [index, part] of parts.entries()) {
    const problem = partCharacterProblem(part, index + 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** A string key as an RPC param: zod reports a malformed one as an issue on that param. */
export const sessionKeyStringSchema = z.string().superRefine(function checkSessionKey(key, ctx) {
  const problem = sessionKeyProblem(key);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * Parses a string key; throws GatewayError `invalid_params` naming `param` when it does not have 3 or 4
 * non-empty colon-separated parts.
 */
export function parseSessionKey(key: string, param = 'key'): SessionKeyParts {
  const problem = sessionKeyProblem(key);
  if (problem !== undefined)
    throw new GatewayError('invalid_params', `Invalid params: '${param}' ${problem}`, { param });
  const [tenantId = '', userId = '', channelId = '', peerId] = key.split(':');
  return peerId === undefined ? { tenantId, userId, channelId } : { tenantId, userId, channelId, peerId };
}

/** A string key read at the edge; throws `invalid_params` naming `param` as parseSessionKey does. */
export function readSessionKey(key: string, param = 'key'): ParsedSessionKey {
  return { sessionKey: key, keyParts: parseSessionKey(key, param) };
}

/** A key made from its parts (a missing tenant becomes `default`); throws `invalid_params` as formatSessionKey does. */
export function makeSessionKey(parts: Omit<SessionKeyParts, 'tenantId'> & { tenantId?: string }): ParsedSessionKey {
  const { tenantId = DEFAULT_TENANT, userId, channelId, peerId } = parts;
  const keyParts = peerId === undefined ? { tenantId, userId, channelId } : { tenantId, userId, channelId, peerId };
  return { sessionKey: formatSessionKey(keyParts), keyParts };
}

/**
 * Formats the object form as a string key. Throws `invalid_params` (param `sessionKey.<field>`) when a part
 * is empty or contains ':'; a missing tenant becomes `default`.
 */
export function formatSessionKey(parts: Omit<SessionKeyParts, 'tenantId'> & { tenantId?: string }): string {
  const tenantId = parts.tenantId ?? DEFAULT_TENANT;
  const fields: [keyof SessionKeyParts, string | undefined][] = [
    ['tenantId', tenantId],
    ['userId', parts.userId],
    ['channelId', parts.channelId],
    ['peerId', parts.peerId],
  ];
  for (const [field, value] of fields) {
    if (value === undefined && field === 'peerId') continue;
    const checked = keyPart.safeParse(value);
    if (!checked.success) {
      const message = checked.error.issues[0]?.message ?? 'is invalid';
      throw new GatewayError('invalid_params', `Invalid params: 'sessionKey.${field}' ${message}`, {
        param: `sessionKey.${field}`,
      });
    }
  }
  const base = `${tenantId}:${parts.userId}:${parts.channelId}`;
  return parts.peerId === undefined ? base : `${base}:${parts.peerId}`;
}

/** The key of the session a spawned sub-agent run works in. */
export function subAgentSessionKey(parent: SessionKeyParts, runId: string): ParsedSessionKey {
  return makeSessionKey({
    tenantId: parent.tenantId,
    userId: parent.userId,
    channelId: SUB_AGENT_CHANNEL,
    peerId: runId,
  });
}

/**
 * The kind of a session, decided once when the session is created and stored with it:
 * 1. `sub-agent` when its metadata says `kind: 'sub-agent'` (session.spawn records this; a key that merely
 *    uses the `subagent` channel is not enough, so a client cannot pose as a sub-agent by naming it);
 * 2. `group` when its metadata says `kind: 'group'` or `isGroup: true`, or its channelId starts with `group`;
 * 3. otherwise `dm`.
 */
export function deriveSessionKind(parts: SessionKeyParts, metadata: Record<string, unknown> = {}): SessionKind {
  if (metadata.kind === 'sub-agent') return 'sub-agent';
  if (metadata.kind === 'group' || metadata.isGroup === true) return 'group';
  if (parts.channelId.startsWith('group')) return 'group';
  return 'dm';
}

/** The channel part of a valid key, or undefined for a malformed one (listing filters skip those). */
export function channelOf(key: string): string | undefined {
  return sessionKeyProblem(key) === undefined ? key.split(':')[2] : undefined;
}
