// Files that come with a Telegram message (voice, audio, photo, document) as attachments the core may fetch: getFile
// names the file's path, then it is downloaded from `<apiRoot>/file/bot<token>/<path>`, cut off past the cap.
import type { Api } from 'grammy';
import { GatewayError } from '../../errors.js';
import type { InboundAttachment } from '../types.js';
import { grammySignal } from './grammy-signal.js';
import type { TelegramFile, TelegramMessage } from './updates.js';

export interface FileSource {
  api: Api;
  /** `<apiRoot>/file/bot<token>`: holds the token, so it is never logged nor put in an error. */
  fileRoot: string;
}

const attachmentTooLarge = (maxBytes: number) =>
  new GatewayError('payload_too_large', `The Telegram attachment is larger than ${maxBytes} bytes`, { maxBytes });

const downloadFailed = (detail: string) =>
  new GatewayError('upstream_failed', `Telegram did not hand out the attachment: ${detail}`);

async function readCapped(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Buffer.concat(chunks);
      total += value.byteLength;
      if (total > maxBytes) throw attachmentTooLarge(maxBytes);
      chunks.push(value);
    }
  } finally {
    // Releases the connection at once when the read stopped early (too large, aborted).
    await reader.cancel().catch(() => undefined);
  }
}

async function download(source: FileSource, fileId: string, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  let path: string | undefined;
  let size: number | undefined;
  try {
    const file = await source.api.getFile(fileId, grammySignal(signal));
    path = file.file_path;
    size = file.file_size;
  } catch (error) {
    throw downloadFailed(error instanceof Error ? error.message : 'getFile failed');
  }
  if (size !== undefined && size > maxBytes) throw attachmentTooLarge(maxBytes);
  if (path === undefined) throw downloadFailed('getFile named no path (files over 20 MB cannot be downloaded by bots)');
  const response = await fetch(`${source.fileRoot}/${encodeURI(path)}`, { signal }).catch((error: unknown) => {
    throw downloadFailed(signal.aborted ? 'aborted' : error instanceof Error ? error.name : 'network error');
  });
  if (!response.ok || response.body === null) {
    await response.body?.cancel().catch(() => undefined);
    throw downloadFailed(`HTTP ${response.status}`);
  }
  return readCapped(response.body, maxBytes);
}

function attachment(
  source: FileSource,
  kind: InboundAttachment['kind'],
  file: Pick<TelegramFile, 'file_id' | 'file_size' | 'file_name'>,
  mimeType: string,
): InboundAttachment {
  return {
    kind,
    mimeType,
    ...(file.file_name === undefined ? {} : { name: file.file_name }),
    bytes: file.file_size ?? 0,
    fetch: (maxBytes, signal) => download(source, file.file_id, maxBytes, signal),
  };
}

function documentKind(mimeType: string): InboundAttachment['kind'] {
  if (mimeType.startsWith('audio/')) return 'audio';
  if (mimeType.startsWith('image/')) return 'image';
  return 'file';
}

/** Voice notes and audio files are audio (transcribed by the core); a photo is offered in its largest size. */
export function attachmentsOf(source: FileSource, message: TelegramMessage): InboundAttachment[] {
  const found: InboundAttachment[] = [];
  const { voice, audio, document, photo } = message;
  if (voice !== undefined) found.push(attachment(source, 'audio', voice, voice.mime_type ?? 'audio/ogg'));
  if (audio !== undefined) found.push(attachment(source, 'audio', audio, audio.mime_type ?? 'audio/mpeg'));
  if (document !== undefined) {
    const mimeType = document.mime_type ?? 'application/octet-stream';
    found.push(attachment(source, documentKind(mimeType), document, mimeType));
  }
  const largest =
    photo === undefined || photo.length === 0
      ? undefined
      : photo.reduce((best, size) => (size.width * size.height > best.width * best.height ? size : best));
  // Telegram re-encodes every photo it stores as JPEG.
  if (largest !== undefined) found.push(attachment(source, 'image', largest, 'image/jpeg'));
  return found;
}
