// Tells the container of audio bytes from their magic numbers, and the one ffmpeg demuxer allowed to read each:
// anything else (HLS or other playlists, concat lists, SDP, any format that can name another file or URL) is refused.

/** The accepted containers, each with the ffmpeg demuxer that reads it; no other demuxer is ever named to ffmpeg. */
export const AUDIO_DEMUXERS = {
  ogg: 'ogg',
  mp3: 'mp3',
  wav: 'wav',
  /** WebM is Matroska; ffmpeg reads both with its matroska demuxer. */
  matroska: 'matroska',
  flac: 'flac',
  /** AAC in ADTS frames, as a raw .aac file. */
  aac: 'aac',
} as const;

export type AudioFormat = keyof typeof AUDIO_DEMUXERS;

/** What a refusal names: the containers accepted. */
export const ACCEPTED_FORMATS_TEXT = 'ogg, mp3, wav, webm/matroska, flac or aac';

const ID3_HEADER_BYTES = 10;
const ID3_FOOTER_FLAG = 0x10;

function startsWith(bytes: Buffer, at: number, magic: readonly number[] | string): boolean {
  const expected = typeof magic === 'string' ? Buffer.from(magic, 'latin1') : Buffer.from(magic);
  return bytes.length >= at + expected.length && bytes.subarray(at, at + expected.length).equals(expected);
}

/** An MPEG audio frame header (layer I, II or III): the 11-bit sync, a defined version, bitrate and sample rate. */
function isMpegAudioFrame(bytes: Buffer, at: number): boolean {
  const [b0, b1, b2] = [bytes[at], bytes[at + 1], bytes[at + 2]];
  if (b0 !== 0xff || b1 === undefined || b2 === undefined || (b1 & 0xe0) !== 0xe0) return false;
  const version = (b1 >> 3) & 0b11;
  const layer = (b1 >> 1) & 0b11;
  const bitrate = b2 >> 4;
  const sampleRate = (b2 >> 2) & 0b11;
  return version !== 0b01 && layer !== 0b00 && bitrate !== 0b1111 && sampleRate !== 0b11;
}

/** An ADTS frame header: the 12-bit sync with layer 00 (AAC), and a defined sampling frequency index. */
function isAdtsFrame(bytes: Buffer, at: number): boolean {
  const [b0, b1, b2] = [bytes[at], bytes[at + 1], bytes[at + 2]];
  if (b0 !== 0xff || b1 === undefined || b2 === undefined || (b1 & 0xf6) !== 0xf0) return false;
  return ((b2 >> 2) & 0b1111) <= 12;
}

/** Where the bytes after an ID3v2 tag start (its size is a 28-bit syncsafe integer), or undefined without one. */
function afterId3Tag(bytes: Buffer): number | undefined {
  if (!startsWith(bytes, 0, 'ID3') || bytes.length < ID3_HEADER_BYTES) return undefined;
  const sizeBytes = bytes.subarray(6, 10);
  if (sizeBytes.some((byte) => byte >= 0x80)) return undefined;
  const size = sizeBytes.reduce((total, byte) => total * 128 + byte, 0);
  const footer = ((bytes[5] ?? 0) & ID3_FOOTER_FLAG) !== 0 ? ID3_HEADER_BYTES : 0;
  return ID3_HEADER_BYTES + size + footer;
}

/** What follows a leading ID3v2 tag: ffmpeg skips the tag for every demuxer, then mp3, aac or flac data must follow. */
function formatAt(bytes: Buffer, at: number): AudioFormat | undefined {
  if (isMpegAudioFrame(bytes, at)) return 'mp3';
  if (isAdtsFrame(bytes, at)) return 'aac';
  if (startsWith(bytes, at, 'fLaC')) return 'flac';
  return undefined;
}

/**
 * The container `bytes` are in, from their first bytes; undefined for anything else. The declared MIME type is not
 * trusted: clients often send the default audio/ogg for whatever they recorded, and a type cannot make a playlist audio.
 */
export function detectAudioFormat(bytes: Buffer): AudioFormat | undefined {
  if (startsWith(bytes, 0, 'OggS')) return 'ogg';
  if (startsWith(bytes, 0, 'RIFF') && startsWith(bytes, 8, 'WAVE')) return 'wav';
  if (startsWith(bytes, 0, [0x1a, 0x45, 0xdf, 0xa3])) return 'matroska';
  const tagEnd = afterId3Tag(bytes);
  return formatAt(bytes, tagEnd ?? 0);
}
