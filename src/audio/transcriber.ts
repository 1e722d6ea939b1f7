// The Transcriber seam every speech-to-text engine implements, and the result a transcription call answers.
import type { VOICE_ERROR_KINDS, VOICE_SOURCES } from '../obs/index.js';

/** Why an engine could not transcribe: the spec's voice.errorKind values. */
export type VoiceErrorKind = (typeof VOICE_ERROR_KINDS)[number];
export type VoiceSource = (typeof VOICE_SOURCES)[number];

/**
 * `error.kind` of a failed audio.transcribe result: a spec voice.errorKind, or `invalid_audio` when the input
 * could not be decoded as audio (the client's data, not the engine, is at fault).
 */
export type TranscriptionErrorKind = VoiceErrorKind | 'invalid_audio';

export interface TranscriptionError {
  kind: TranscriptionErrorKind;
  message: string;
}

/**
 * What audio.transcribe answers. Success: `{text, language?, durationMs}`. Failure (no engine, every engine
 * failed, undecodable input): `{text: '', error: {kind, message}}` with durationMs when decoding worked; never
 * an RPC error (spec). `mediaId` when `save: true` stored the decoded audio.
 */
export interface TranscriptionResult {
  text: string;
  language?: string;
  durationMs?: number;
  mediaId?: string;
  error?: TranscriptionError;
}

/** One engine's input: the decoded 16 kHz mono 16-bit WAV, as a file and as bytes. */
export interface TranscribeInput {
  wavPath: string;
  wav: Buffer;
  /** The caller's language hint (ISO 639-1, optionally with a region), when given. */
  language?: string;
  signal: AbortSignal;
}

export type EngineOutcome =
  { ok: true; text: string; language?: string } | { ok: false; errorKind: VoiceErrorKind; message: string };

/** How an engine is reported in the voice evidence (content-free). */
export interface EngineIdentity {
  /** The provider name, or `pocketsphinx`. */
  provider: string;
  /** True when no API key is sent (costUsd 0 in the voice block). */
  keyless: boolean;
  model?: string;
  /** How this engine was chosen (`fallback` for every engine after the first); absent when no engine is configured. */
  source?: VoiceSource;
}

export interface Transcriber {
  readonly identity: EngineIdentity;
  transcribe(input: TranscribeInput): Promise<EngineOutcome>;
}
