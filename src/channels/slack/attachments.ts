// Files on Slack messages as inbound attachments: url_private downloaded with the bot token, cut off past the cap.
// The Web API client has no download call, so this one GET uses fetch, and only towards Slack's own file origins.
import { z } from 'zod';
import type { InboundAttachment } from '../types.js';
import { slackAttachmentTooLarge, slackFileUnavailable } from './slack-errors.js';

/** Where Slack serves private files; the API base URL's own origin is added (a self-hosted or fake Slack). */
const SLACK_FILE_ORIGINS = ['https://files.slack.com'];

export const slackFileSchema = z.object({
  id: z.string().min(1).max(64),
  name: z.string().max(1_000).optional(),
  mimetype: z.string().max(255).optional(),
  size: z.number().int().nonnegative().optional(),
  url_private: z.url().optional(),
});

export type SlackFile = z.infer<typeof slackFileSchema>;

function kindOf(mimeType: string): InboundAttachment['kind'] {
  if (mimeType.startsWith('audio/')) return 'audio';
  if (mimeType.startsWith('image/')) return 'image';
  return 'file';
}

async function download(url: string, botToken: string, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${botToken}` }, signal });
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    throw slackFileUnavailable(response.status);
  }
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body.cancel();
    throw slackAttachmentTooLarge(maxBytes);
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw slackAttachmentTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

export interface AttachmentSource {
  botToken: string;
  /** The configured Web API base URL: files from its origin are accepted too. */
  apiBaseUrl: string;
}

/** The attachments of a message's files; a file without a private URL on a Slack file origin is left out. */
export function slackAttachments(
  files: readonly SlackFile[],
  { botToken, apiBaseUrl }: AttachmentSource,
): InboundAttachment[] {
  const origins = new Set([...SLACK_FILE_ORIGINS, new URL(apiBaseUrl).origin]);
  const attachments: InboundAttachment[] = [];
  for (const file of files) {
    const url = file.url_private;
    if (url === undefined || !origins.has(new URL(url).origin)) continue;
    const mimeType = file.mimetype ?? 'application/octet-stream';
    attachments.push({
      kind: kindOf(mimeType),
      mimeType,
      ...(file.name === undefined ? {} : { name: file.name }),
      bytes: file.size ?? 0,
      fetch: (maxBytes, signal) => download(url, botToken, maxBytes, signal),
    });
  }
  return attachments;
}
