// audio.transcribe decodes only the bytes it is given: playlists, concat lists and SDP that name other files or URLs
// (also behind a container's magic number) answer invalid_audio and the named files are never read; the accepted
// containers (ogg, mp3, wav, webm/matroska, flac, aac) still transcribe, whatever mimeType is declared.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../support/gateway-harness.js';
import { callRpc } from '../support/http-client.js';
import { PHRASE, PHRASE_KEY_WORDS, speak, type SpokenAudio } from './speech-fixtures.js';

const run = promisify(execFile);

interface Transcription {
  text: string;
  durationMs?: number;
  mediaId?: string;
  error?: { kind: string; message: string };
}

/** An access time far in the past: a read of the file moves it to now (relatime updates an atime older than mtime). */
const UNREAD_ATIME = new Date('2000-01-01T00:00:00.000Z');

const hlsPlaylist = (target: string) => `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n${target}\n#EXT-X-ENDLIST\n`;

describe('audio.transcribe reads only the given bytes', () => {
  let harness: Harness;
  let speech: SpokenAudio;
  let secretsDir: string;
  /** Speech files on the gateway's disk that no client sent: secret.mp3, .flac, .aac, .mkv. */
  const secrets: string[] = [];

  async function transcribe(params: Record<string, unknown>): Promise<Transcription> {
    const response = await callRpc(harness.url, harness.tokens.rpc, 'audio.transcribe', params);
    if (response.error !== undefined) throw new Error(JSON.stringify(response.error));
    return response.result as Transcription;
  }
  const savedMedia = async () => (await readdir(join(harness.dataDir, 'media'))).sort();
  const atimeOf = async (path: string) => (await stat(path)).atimeMs;

  beforeAll(async () => {
    speech = await speak(PHRASE);
    secretsDir = await mkdtemp(join(tmpdir(), 'audio-secrets-'));
    const wavPath = join(secretsDir, 'speech.wav');
    await run('espeak-ng', ['-v', 'en-us+f3', '-w', wavPath, PHRASE]);
    for (const [name, codec] of [
      ['secret.mp3', 'libmp3lame'],
      ['secret.flac', 'flac'],
      ['secret.aac', 'aac'],
      ['secret.mkv', 'libopus'],
    ] as const) {
      const path = join(secretsDir, name);
      await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', '-i', wavPath, '-c:a', codec, path]);
      secrets.push(path);
    }
    harness = await startGateway({ audio: { engines: [{ kind: 'pocketsphinx' }] } });
  }, 60_000);

  afterAll(async () => {
    await harness?.close();
    await rm(secretsDir, { recursive: true, force: true });
  });

  it('refuses an HLS playlist naming a local file as invalid_audio, saves nothing and never reads the file', async () => {
    for (const secret of secrets) {
      await utimes(secret, UNREAD_ATIME, new Date());
      const before = await savedMedia();
      for (const target of [`file:${secret}`, secret]) {
        for (const mimeType of [
          undefined,
          'audio/mpeg',
          'application/vnd.apple.mpegurl',
          'audio/flac',
          'audio/aac',
          'video/x-matroska',
        ]) {
          const playlist = Buffer.from(hlsPlaylist(target)).toString('base64');
          const result = await transcribe({
            audio: playlist,
            save: true,
            ...(mimeType === undefined ? {} : { mimeType }),
          });
          expect(result, `${target} as ${mimeType ?? 'default'}`).toEqual({
            text: '',
            error: { kind: 'invalid_audio', message: expect.any(String) },
          });
          expect(result.error?.message).not.toContain(secretsDir);
        }
      }
      expect(await savedMedia(), secret).toEqual(before);
      expect(await atimeOf(secret), secret).toBe(UNREAD_ATIME.getTime());
    }
  }, 120_000);

  it('refuses concat lists, SDP and playlists behind a container magic number, reading no named file', async () => {
    const secret = secrets[0] ?? '';
    await utimes(secret, UNREAD_ATIME, new Date());
    const playlist = hlsPlaylist(`file:${secret}`);
    const riffHeader = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4, 0xff), Buffer.from('WAVE')]);
    const id3Header = Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
    const inputs: [string, Buffer][] = [
      ['concat list', Buffer.from(`ffconcat version 1.0\nfile 'file:${secret}'\n`)],
      [
        'SDP',
        Buffer.from(
          `v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nt=0 0\nm=audio 5004 RTP/AVP 96\na=rtpmap:96 opus/48000/2\n`,
        ),
      ],
      ['playlist after OggS', Buffer.concat([Buffer.from('OggS'), Buffer.from(playlist)])],
      ['playlist after the EBML magic', Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.from(playlist)])],
      ['playlist after a RIFF/WAVE header', Buffer.concat([riffHeader, Buffer.from(playlist)])],
      ['playlist after an ID3 tag', Buffer.concat([id3Header, Buffer.from(playlist)])],
      ['playlist after fLaC', Buffer.concat([Buffer.from('fLaC'), Buffer.from(playlist)])],
    ];
    const before = await savedMedia();
    for (const [name, bytes] of inputs) {
      const result = await transcribe({ audio: bytes.toString('base64'), save: true });
      expect(result, name).toEqual({ text: '', error: { kind: 'invalid_audio', message: expect.any(String) } });
    }
    expect(await savedMedia()).toEqual(before);
    expect(await atimeOf(secret)).toBe(UNREAD_ATIME.getTime());
  }, 120_000);

  it('transcribes ogg, wav, flac, webm, mp3 and aac, each told from its bytes even under a wrong mimeType', async () => {
    const inputs: [string, Buffer, string][] = [
      ['ogg', speech.opus, 'audio/ogg'],
      ['wav', speech.wav, 'audio/wav'],
      ['flac', speech.flac, 'audio/flac'],
      ['webm', speech.webm, 'audio/webm'],
      ['wav as ogg', speech.wav, 'audio/ogg'],
      ['flac as mpeg', speech.flac, 'audio/mpeg'],
    ];
    for (const [name, bytes, mimeType] of inputs) {
      const result = await transcribe({ audio: bytes.toString('base64'), mimeType });
      expect(result.error, name).toBeUndefined();
      for (const word of PHRASE_KEY_WORDS) expect(result.text, name).toContain(word);
    }
    // The recogniser's words from lossy mp3 and aac of synthetic speech vary; that each decoded whole is what is checked.
    for (const [name, bytes] of [
      ['mp3', speech.mp3],
      ['aac', speech.aac],
    ] as const) {
      const result = await transcribe({ audio: bytes.toString('base64') });
      expect(result.error, name).toBeUndefined();
      expect(result.durationMs, name).toBeGreaterThan(speech.durationMs - 100);
    }
  }, 120_000);

  it('saves exactly the decoding of the given bytes with save: true', async () => {
    const result = await transcribe({ audio: speech.flac.toString('base64'), mimeType: 'audio/flac', save: true });
    expect(result.error).toBeUndefined();
    expect(await savedMedia()).toContain(result.mediaId);
    const served = await fetch(`${harness.url}/media/${result.mediaId ?? ''}`, {
      headers: { authorization: `Bearer ${harness.tokens.rpc}` },
    });
    const wav = Buffer.from(await served.arrayBuffer());
    // 16 kHz mono 16-bit samples of the spoken phrase: its length matches the spoken WAV's.
    const samples = (wav.length - wav.indexOf('data', 12, 'ascii') - 8) / 2;
    expect(Math.abs((samples * 1000) / 16_000 - speech.durationMs)).toBeLessThanOrEqual(20);
  }, 60_000);
});
