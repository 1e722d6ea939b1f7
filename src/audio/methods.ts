// audio.transcribe: params (base64 audio, MIME type, language, our optional sessionKey and save), the payload
// limit, the caller's evidence key and the owner check; the work is the TranscribeService's.
import type { MethodContext } from '../rpc/types.js';
import { z } from 'zod';
import { invalidParams } from '../errors.js';
import { defineMethod } from '../rpc/index.js';
import type { SessionPort } from '../store/index.js';
import {
  assertKeyAllowed,
  assertSessionAccess,
  formatSessionKey,
  readSessionKey,
  sessionCallerOf,
  sessionKeyStringSchema,
  type KeyGrants,
} from '../sessions/index.js';
import type { TranscribeService } from './transcribe-service.js';

/** Spec: mimeType defaults to audio/ogg. */
export const DEFAULT_MIME_TYPE = 'audio/ogg';
/** The channel of the per-caller key voice evidence goes to when no sessionKey is given: `default:<clientId>:audio`. */
export const AUDIO_CHANNEL = 'audio';
/** Room in the params limit for everything besides the base64 audio (mimeType, language, sessionKey, JSON syntax). */
export const PARAMS_OVERHEAD_BYTES = 4_096;

/** Standard base64 (RFC 4648 §4), padded, no whitespace: what a client's encoder produces. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** type/subtype with optional parameters (RFC 6838 names). */
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;.*)?$/;
/** A BCP 47 language tag's common forms: `en`, `en-US`, `pt-BR`. */
const LANGUAGE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/** The largest params object one call with `maxAudioBytes` of audio sends, base64 included. */
export function maxParamsBytesFor(maxAudioBytes: number): number {
  return Math.ceil(maxAudioBytes / 3) * 4 + PARAMS_OVERHEAD_BYTES;
}

export interface AudioMethodsDeps {
  transcribe: TranscribeService;
  sessions: Pick<SessionPort, 'get'>;
  /** Read per call, so a reload that lowers the limit applies at once. */
  maxAudioBytes: () => number;
  /** Fixed at startup: the registry's policy is declared once. */
  maxParamsBytes: number;
  /** Whether a media store is wired for `save: true`. */
  canSave: boolean;
  /** The tenants and token ids behind the key check of a session not created yet (sessions/session-access.ts). */
  grants: KeyGrants;
}

/** The key the call's voice evidence is recorded under; a given session must be the caller's (or the caller admin). */
async function evidenceKey(
  { sessions, grants }: Pick<AudioMethodsDeps, 'sessions' | 'grants'>,
  sessionKey: string | undefined,
  ctx: MethodContext,
): Promise<string> {
  if (sessionKey === undefined)
    return formatSessionKey({ tenantId: 'default', userId: ctx.caller.clientId, channelId: AUDIO_CHANNEL });
  const caller = sessionCallerOf(ctx.caller);
  const session = await sessions.get(sessionKey);
  // A key no session has yet is the caller's to use as agent.execute would let them create it: in a tenant they are
  // given, and not naming another token.
  if (session === undefined) await assertKeyAllowed(readSessionKey(sessionKey, 'sessionKey'), caller, grants);
  else assertSessionAccess(session, caller);
  return sessionKey;
}

export function audioMethods({
  transcribe,
  sessions,
  grants,
  maxAudioBytes,
  maxParamsBytes,
  canSave,
}: AudioMethodsDeps) {
  return [
    defineMethod({
      name: 'audio.transcribe',
      scope: 'rpc',
      summary:
        'Transcribes base64 audio (ogg/opus, mp3, wav, webm/matroska, flac, aac, told from its bytes; mimeType default audio/ogg) with the engines of audio.engines in order. ' +
        'An unconfigured or failing engine answers {text: "", error: {kind, message}}, not an RPC error. Extensions: sessionKey ' +
        '(a session the caller owns; default default:<clientId>:audio) names where the voice evidence goes; save: true stores the decoded WAV as media (mediaId). ' +
        'With audio.maxConcurrent calls running and the waiting queue full, a call is refused unavailable with retryAfterMs.',
      params: z.strictObject({
        audio: z.string().min(1).regex(BASE64, 'must be standard base64 (A-Z, a-z, 0-9, +, /, padded with =)'),
        mimeType: z.string().max(255).regex(MIME_TYPE, 'must be a MIME type such as audio/ogg').optional(),
        language: z.string().max(35).regex(LANGUAGE, 'must be a language code such as en or en-US').optional(),
        sessionKey: sessionKeyStringSchema.optional(),
        save: z.boolean().optional(),
      }),
      policy: { maxParamsBytes },
      handler: async ({ audio, mimeType = DEFAULT_MIME_TYPE, language, sessionKey, save = false }, ctx) => {
        const bytes = Buffer.from(audio, 'base64');
        const limit = maxAudioBytes();
        if (bytes.length > limit)
          throw invalidParams(
            `Invalid params: 'audio' is ${bytes.length} bytes, more than audio.maxAudioBytes (${limit})`,
            'audio',
          );
        if (save && !canSave)
          throw invalidParams("Invalid params: 'save' needs the media store, which this gateway does not run", 'save');
        const key = await evidenceKey({ sessions, grants }, sessionKey, ctx);
        return transcribe({
          audio: bytes,
          mimeType,
          ...(language === undefined ? {} : { language }),
          save,
          sessionKey: key,
          callerId: ctx.caller.clientId,
          traceId: ctx.traceId,
          signal: ctx.signal,
        });
      },
    }),
  ];
}
