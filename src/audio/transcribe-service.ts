// One transcription: wait for a slot, decode with ffmpeg in a private temp dir, optionally save the decoded audio as
// media, try each configured engine in order, record the voice evidence, and answer a result (never a thrown engine
// failure; a call refused a slot throws `unavailable`).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/index.js';
import { decodeAudio } from './decode.js';
import { buildEngines } from './engines.js';
import type { AdmissionLimiter } from './limiter.js';
import type { EngineIdentity, TranscriptionResult, VoiceErrorKind } from './transcriber.js';
import type { VoiceEvidence } from './voice-evidence.js';

/** The agreed media dependency (DESIGN §4, issue 14): the lead wires it to the media store's save(). */
export type SaveMedia = (input: {
  data: Buffer;
  contentType: string;
  /** The token id the file belongs to: only it (and admin callers) may read it back. */
  ownerId: string;
  origin?: { sessionKey: string; traceId?: string; toolName?: string };
}) => Promise<{ id: string }>;

export interface TranscribeRequest {
  audio: Buffer;
  mimeType: string;
  language?: string;
  /** Store the decoded WAV through saveMedia and answer its id. */
  save: boolean;
  /** Where the voice evidence is recorded. */
  sessionKey: string;
  /** The calling token's id: the owner of what `save` stores. */
  callerId: string;
  traceId: string;
  signal: AbortSignal;
}

export interface TranscribeServiceDeps {
  config: () => Pick<GatewayConfig, 'audio' | 'agents' | 'providers'>;
  /** Every call holds one of its slots from decoding to the last engine: local processes and upstream calls alike. */
  limiter: AdmissionLimiter;
  evidence: VoiceEvidence;
  saveMedia?: SaveMedia;
  log: Logger;
}

/** Reported when audio.engines is empty: nothing was chosen, so there is no source. */
const NO_ENGINE: EngineIdentity = { provider: 'none', keyless: true };
const TEMP_PREFIX = 'agent-gateway-audio-';

export type TranscribeService = (request: TranscribeRequest) => Promise<TranscriptionResult>;

export function createTranscribeService({
  config,
  limiter,
  evidence,
  saveMedia,
  log,
}: TranscribeServiceDeps): TranscribeService {
  async function transcribeInSlot(request: TranscribeRequest): Promise<TranscriptionResult> {
    const { sessionKey, traceId, signal } = request;
    const current = config();
    const engines = buildEngines(current);
    const first = engines[0];
    if (first === undefined) {
      evidence({ sessionKey, traceId, engine: NO_ENGINE, errorKind: 'no_keyless_engine' });
      return {
        text: '',
        error: {
          kind: 'no_keyless_engine',
          message: 'No speech-to-text engine is configured: list one under audio.engines',
        },
      };
    }
    // mkdtemp creates the dir 0700: the decoding is the caller's alone. Nothing is written before the slot is granted.
    const dir = await mkdtemp(join(tmpdir(), TEMP_PREFIX));
    try {
      const { ffmpegPath, timeoutMs, maxDurationMs } = current.audio;
      const decoded = await decodeAudio(request.audio, request.mimeType, dir, {
        ffmpegPath,
        timeoutMs,
        maxDurationMs,
        signal,
      });
      if (!decoded.ok) {
        evidence({ sessionKey, traceId, engine: first.identity, errorKind: decoded.error.kind });
        return { text: '', error: decoded.error };
      }
      const { durationMs } = decoded;
      const saved =
        request.save && saveMedia !== undefined
          ? await saveMedia({
              data: decoded.wav,
              contentType: 'audio/wav',
              ownerId: request.callerId,
              origin: { sessionKey, traceId, toolName: 'audio.transcribe' },
            })
          : undefined;
      const media = saved === undefined ? {} : { mediaId: saved.id };
      const failures: string[] = [];
      // Replaced by the first engine's own failure: the list is not empty here.
      let failed: { engine: EngineIdentity; errorKind: VoiceErrorKind } = {
        engine: first.identity,
        errorKind: 'dependency',
      };
      for (const engine of engines) {
        const outcome = await engine.transcribe({
          wavPath: decoded.wavPath,
          wav: decoded.wav,
          ...(request.language === undefined ? {} : { language: request.language }),
          signal,
        });
        if (outcome.ok) {
          evidence({ sessionKey, traceId, engine: engine.identity, durationMs });
          return {
            text: outcome.text,
            ...(outcome.language === undefined ? {} : { language: outcome.language }),
            durationMs,
            ...media,
          };
        }
        log.warn(
          { traceId, provider: engine.identity.provider, errorKind: outcome.errorKind },
          'speech-to-text engine failed',
        );
        failures.push(`${engine.identity.provider}: ${outcome.message}`);
        failed = { engine: engine.identity, errorKind: outcome.errorKind };
      }
      evidence({ sessionKey, traceId, ...failed, durationMs });
      return { text: '', durationMs, ...media, error: { kind: failed.errorKind, message: failures.join('; ') } };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  return (request) => limiter.run(request.audio.length, () => transcribeInSlot(request), request.signal);
}
