// Decodes any input ffmpeg reads (ogg/opus, mp3, wav, webm …) to 16 kHz mono 16-bit WAV in a private temp dir.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProcessLimiter } from './limiter.js';
import { runProcess } from './run-process.js';
import type { TranscriptionError } from './transcriber.js';

/** What every engine receives: the rate and layout pocketsphinx's en-us model was trained on. */
export const DECODED_SAMPLE_RATE = 16_000;
const BYTES_PER_SAMPLE = 2;

/** ffmpeg demuxer per MIME type (parameters such as `; codecs=opus` stripped); others are probed. */
const FORMAT_HINTS: Readonly<Record<string, string>> = {
  'audio/ogg': 'ogg',
  'audio/opus': 'ogg',
  'application/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/wav': 'wav',
  'audio/wave': 'wav',
  'audio/x-wav': 'wav',
  'audio/vnd.wave': 'wav',
  'audio/webm': 'matroska',
  'video/webm': 'matroska',
};

export function formatHintOf(mimeType: string): string | undefined {
  return FORMAT_HINTS[mimeType.split(';')[0]?.trim().toLowerCase() ?? ''];
}

export interface DecodeOptions {
  ffmpegPath: string;
  timeoutMs: number;
  maxDurationMs: number;
  limiter: ProcessLimiter;
  signal: AbortSignal;
}

export type DecodeOutcome =
  | { ok: true; wavPath: string; wav: Buffer; durationMs: number }
  | { ok: false; error: TranscriptionError };

/** Samples in the WAV's `data` chunk, walking the RIFF chunks (ffmpeg may add LIST before data). */
export function wavDurationMs(wav: Buffer): number | undefined {
  if (wav.length < 12 || wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE') return undefined;
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

function ffmpegArgs(input: string, output: string, format: string | undefined, maxDurationMs: number): string[] {
  return [
    '-hide_banner', '-loglevel', 'error', '-nostdin', '-y',
    ...(format === undefined ? [] : ['-f', format]),
    '-i', input,
    '-t', (maxDurationMs / 1000).toFixed(3),
    '-vn', '-ac', '1', '-ar', String(DECODED_SAMPLE_RATE), '-c:a', 'pcm_s16le', '-f', 'wav', output,
  ];
}

/**
 * Writes `audio` into `dir` and decodes it. The MIME type is tried as a demuxer hint first; when that fails the
 * input is probed, since clients often send the default `audio/ogg` for whatever they recorded.
 */
export async function decodeAudio(audio: Buffer, mimeType: string, dir: string, options: DecodeOptions): Promise<DecodeOutcome> {
  const input = join(dir, 'input');
  const wavPath = join(dir, 'decoded.wav');
  await writeFile(input, audio, { mode: 0o600 });
  const hint = formatHintOf(mimeType);
  const attempts = hint === undefined ? [undefined] : [hint, undefined];
  let detail = '';
  for (const format of attempts) {
    const outcome = await options.limiter.run(
      () => runProcess(options.ffmpegPath, ffmpegArgs(input, wavPath, format, options.maxDurationMs), { timeoutMs: options.timeoutMs, signal: options.signal }),
      options.signal,
    );
    if (outcome.ok) {
      const wav = await readFile(wavPath);
      const durationMs = wavDurationMs(wav);
      if (durationMs !== undefined && durationMs > 0) return { ok: true, wavPath, wav, durationMs };
      detail = 'no audio samples';
      continue;
    }
    if (outcome.reason === 'missing') {
      return { ok: false, error: { kind: 'dependency', message: `${outcome.detail}: install ffmpeg (apt-get install ffmpeg) or set audio.ffmpegPath` } };
    }
    if (outcome.reason === 'timeout') return { ok: false, error: { kind: 'timeout', message: `decoding: ${outcome.detail}` } };
    // ffmpeg names its input by path; the client needs no view of the server's temp dir.
    detail = outcome.detail.replaceAll(`${input}: `, '').replaceAll(input, 'input');
  }
  return { ok: false, error: { kind: 'invalid_audio', message: `The audio could not be decoded (${mimeType}): ${detail}` } };
}
