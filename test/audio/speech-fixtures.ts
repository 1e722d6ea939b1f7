// Spoken test audio made on the spot: espeak-ng speaks a phrase to WAV, ffmpeg re-encodes it (ogg/opus, webm, mp3, flac, aac).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A phrase pocketsphinx 0.8's en-us model recognises from espeak-ng's `en-us+f3` voice, as WAV and as ogg/opus
 * (tried against several phrases and voices; its key words survive both encodings).
 */
export const PHRASE = 'the president of the united states';
export const PHRASE_KEY_WORDS = ['president', 'united states'];

export interface SpokenAudio {
  wav: Buffer;
  /** ogg/opus, as voice notes are sent. */
  opus: Buffer;
  /** opus in a webm container, as browsers record. */
  webm: Buffer;
  mp3: Buffer;
  flac: Buffer;
  /** AAC in ADTS frames, as a raw .aac file. */
  aac: Buffer;
  /** Length of the spoken WAV, from its sample count. */
  durationMs: number;
}

function wavDuration(wav: Buffer): number {
  const sampleRate = wav.readUInt32LE(24);
  const blockAlign = wav.readUInt16LE(32);
  const dataAt = wav.indexOf('data', 12, 'ascii');
  return Math.round(((wav.readUInt32LE(dataAt + 4) / blockAlign) * 1000) / sampleRate);
}

export async function speak(text: string): Promise<SpokenAudio> {
  const dir = await mkdtemp(join(tmpdir(), 'audio-fixture-'));
  try {
    const wavPath = join(dir, 'speech.wav');
    const opusPath = join(dir, 'speech.ogg');
    await run('espeak-ng', ['-v', 'en-us+f3', '-w', wavPath, text]);
    const webmPath = join(dir, 'speech.webm');
    const mp3Path = join(dir, 'speech.mp3');
    const encode = (codec: string, output: string) =>
      run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', '-i', wavPath, '-c:a', codec, output]);
    await encode('libopus', opusPath);
    await encode('libopus', webmPath);
    await encode('libmp3lame', mp3Path);
    const flacPath = join(dir, 'speech.flac');
    const aacPath = join(dir, 'speech.aac');
    await encode('flac', flacPath);
    await encode('aac', aacPath);
    const wav = await readFile(wavPath);
    return {
      wav,
      opus: await readFile(opusPath),
      webm: await readFile(webmPath),
      mp3: await readFile(mp3Path),
      flac: await readFile(flacPath),
      aac: await readFile(aacPath),
      durationMs: wavDuration(wav),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
