// Decodes the given audio bytes (ogg/opus, mp3, wav, webm, flac, aac) to 16 kHz mono 16-bit WAV in a private temp dir.
// ffmpeg reads only those bytes, from its stdin, with the demuxer of the container detected from them: no demuxer
// that follows a playlist or a reference, and no protocol but the pipe, so no input can make it open another file.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ACCEPTED_FORMATS_TEXT, AUDIO_DEMUXERS, detectAudioFormat, type AudioFormat } from './audio-format.js';
import { runProcess } from './run-process.js';
import type { TranscriptionError } from './transcriber.js';

/** What every engine receives: the rate and layout pocketsphinx's en-us model was trained on. */
export const DECODED_SAMPLE_RATE = 16_000;
const BYTES_PER_SAMPLE = 2;

/** ffmpeg's name for its stdin: the only input, and (with the whitelist) the only protocol, a decoding may use. */
const STDIN_INPUT = 'pipe:0';

export interface DecodeOptions {
  ffmpegPath: string;
  timeoutMs: number;
  maxDurationMs: number;
  signal: AbortSignal;
}

export type DecodeOutcome =
  { ok: true; wavPath: string; wav: Buffer; durationMs: number } | { ok: false; error: TranscriptionError };

/** Samples in the WAV's `data` chunk, walking the RIFF chunks (ffmpeg may add LIST before data). */
export function wavDurationMs(wav: Buffer): number | undefined {
  if (wav.length < 12 || wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE')
    return undefined;
  for (let offset = 12; offset + 8 <= wav.length;) {
    const id = wav.toString('ascii', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    if (id === 'data') {
      const bytes = Math.min(size, wav.length - offset - 8);
      return Math.round((Math.floor(bytes / BYTES_PER_SAMPLE) * 1000) / DECODED_SAMPLE_RATE);
    }
    // RIFF chunks are padded to an even size.
    offset += 8 + size + (size % 2);
  }
  return undefined;
}

/** Input options come before `-i`, where ffmpeg applies them to that input. */
export function ffmpegArgs(format: AudioFormat, output: string, maxDurationMs: number): string[] {
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    '-y',
    '-protocol_whitelist',
    'pipe',
    '-f',
    AUDIO_DEMUXERS[format],
    '-i',
    STDIN_INPUT,
    '-t',
    (maxDurationMs / 1000).toFixed(3),
    '-vn',
    '-ac',
    '1',
    '-ar',
    String(DECODED_SAMPLE_RATE),
    '-c:a',
    'pcm_s16le',
    '-f',
    'wav',
    output,
  ];
}

const invalidAudio = (mimeType: string, detail: string): DecodeOutcome => ({
  ok: false,
  error: { kind: 'invalid_audio', message: `The audio could not be decoded (${mimeType}): ${detail}` },
});

/**
 * Decodes `audio` into `dir/decoded.wav`. The container is told from the bytes, not from `mimeType` (clients often
 * send the default audio/ogg for whatever they recorded); bytes in no accepted container are refused before ffmpeg runs.
 */
export async function decodeAudio(
  audio: Buffer,
  mimeType: string,
  dir: string,
  options: DecodeOptions,
): Promise<DecodeOutcome> {
  const format = detectAudioFormat(audio);
  if (format === undefined) return invalidAudio(mimeType, `not an ${ACCEPTED_FORMATS_TEXT} file`);
  const wavPath = join(dir, 'decoded.wav');
  const outcome = await runProcess(options.ffmpegPath, ffmpegArgs(format, wavPath, options.maxDurationMs), {
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    stdin: audio,
  });
  if (outcome.ok) {
    const wav = await readFile(wavPath);
    const durationMs = wavDurationMs(wav);
    if (durationMs !== undefined && durationMs > 0) return { ok: true, wavPath, wav, durationMs };
    return invalidAudio(mimeType, 'no audio samples');
  }
  if (outcome.reason === 'missing') {
    return {
      ok: false,
      error: {
        kind: 'dependency',
        message: `${outcome.detail}: install ffmpeg (apt-get install ffmpeg) or set audio.ffmpegPath`,
      },
    };
  }
  if (outcome.reason === 'timeout')
    return { ok: false, error: { kind: 'timeout', message: `decoding: ${outcome.detail}` } };
  // ffmpeg names its input pipe:0; the client sent a file.
  return invalidAudio(
    mimeType,
    `${format}: ${outcome.detail.replaceAll(`${STDIN_INPUT}: `, '').replaceAll(STDIN_INPUT, 'input')}`,
  );
}
