// Reads one fetched mail (parsed with mailparser) as what the channel core gets: a message, an approval answer, or
// nothing (auto-replies, the gateway's own mail, mail without a sender).
import { simpleParser, type Attachment, type ParsedMail } from 'mailparser';
import { deliveryFailure } from './delivery-failure.js';
import type { InboundApprovalAnswer, InboundAttachment, InboundMessage } from '../types.js';

export type InboundMail =
  | { kind: 'message'; message: InboundMessage; subject: string }
  | { kind: 'approval'; answer: InboundApprovalAnswer }
  | { kind: 'ignored'; reason: 'no sender' | 'own address' | 'auto-submitted' };

export interface MailIdentity {
  /** The mailbox's UIDVALIDITY and the mail's UID: its id when the mail has no Message-ID. */
  uidValidity: bigint;
  uid: number;
  receivedAt: number;
  /** Set when only the header was fetched: the whole mail has this many bytes, more than the channel takes. */
  oversizedBytes?: number;
}

/** A typed answer to an approval mail: the first line the operator wrote, `approve 7Q2K` or `deny 7Q2K`. */
const approvalAnswer = /^(approve|deny)\s+([A-Za-z0-9_-]{1,64})\s*[.!]?\s*$/i;

/** A mail client's attribution line above the quoted original ("On Mon, 1 Jan 2024, Ann <a@b> wrote:"). */
const attribution = /^On\s.*wrote:\s*$/;

/** HTML bodies beyond this are not converted to text (mailparser's own default is larger); the plain part wins anyway. */
const maxHtmlCharsToText = 1_000_000;

export async function readInboundMail(source: Buffer, ownAddress: string, id: MailIdentity): Promise<InboundMail> {
  const parsed = await simpleParser(source, { maxHtmlLengthToParse: maxHtmlCharsToText, skipTextToHtml: true });
  const sender = parsed.from?.value[0]?.address?.toLowerCase();
  if (sender === undefined || sender === '') return { kind: 'ignored', reason: 'no sender' };
  if (sender === ownAddress.toLowerCase()) return { kind: 'ignored', reason: 'own address' };
  if (isAutoSubmitted(parsed)) return { kind: 'ignored', reason: 'auto-submitted' };
  const text = cutQuotedReply(parsed.text ?? '');
  const firstLine = text.split('\n').find((line) => line.trim() !== '');
  const answer = firstLine === undefined ? null : approvalAnswer.exec(firstLine.trim());
  if (answer?.[1] !== undefined && answer[2] !== undefined) {
    return {
      kind: 'approval',
      answer: {
        chatId: sender,
        senderId: sender,
        requestRef: answer[2],
        approved: answer[1].toLowerCase() === 'approve',
      },
    };
  }
  const messageId = parsed.messageId ?? `<uid-${id.uid}.${id.uidValidity}@imap.invalid>`;
  const threadId = firstReference(parsed) ?? parsed.inReplyTo ?? messageId;
  const message: InboundMessage = {
    chatId: sender,
    senderId: sender,
    messageId,
    threadId,
    text,
    attachments:
      id.oversizedBytes === undefined
        ? parsed.attachments.filter((attachment) => !attachment.related).map(toInboundAttachment)
        : [oversizedMail(id.oversizedBytes)],
    receivedAt: id.receivedAt,
  };
  return { kind: 'message', message, subject: parsed.subject ?? '' };
}

/**
 * The new part of a reply: lines quoted with `>` are dropped, and so is everything from the attribution line
 * ("On … wrote:", which some clients wrap over two lines) on, since below it is the quoted original.
 */
export function cutQuotedReply(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const next = lines[i + 1] ?? '';
    if (attribution.test(line) || (/^On\s/.test(line) && /wrote:\s*$/.test(next) && quoteFollows(lines, i + 2))) break;
    if (!line.startsWith('>')) kept.push(line);
  }
  return kept.join('\n').trim();
}

function quoteFollows(lines: readonly string[], from: number): boolean {
  const line = lines.slice(from).find((candidate) => candidate.trim() !== '');
  return line?.startsWith('>') ?? false;
}

function firstReference(parsed: ParsedMail): string | undefined {
  const references = parsed.references;
  if (typeof references === 'string') return references.split(/\s+/).find((reference) => reference !== '');
  return references?.[0];
}

/** RFC 3834: vacation notices and other automatic mail say so; answering them would loop between two robots. */
function isAutoSubmitted(parsed: ParsedMail): boolean {
  const autoSubmitted = parsed.headers.get('auto-submitted');
  if (typeof autoSubmitted === 'string' && autoSubmitted.trim().toLowerCase() !== 'no') return true;
  const precedence = parsed.headers.get('precedence');
  return typeof precedence === 'string' && /^(bulk|junk|list|auto_reply)$/i.test(precedence.trim());
}

/**
 * A mail too large to fetch reaches the core as one attachment of its whole size: past the channel's cap, so the
 * sender gets the core's polite refusal in the chat and nothing is stored.
 */
function oversizedMail(bytes: number): InboundAttachment {
  return {
    kind: 'file',
    mimeType: 'message/rfc822',
    name: 'message.eml',
    bytes,
    fetch: () => Promise.reject(deliveryFailure(`the mail has ${bytes} bytes, more than the channel takes`, false)),
  };
}

function toInboundAttachment(attachment: Attachment): InboundAttachment {
  const mimeType = attachment.contentType.toLowerCase();
  const content = attachment.content;
  return {
    kind: mimeType.startsWith('audio/') ? 'audio' : mimeType.startsWith('image/') ? 'image' : 'file',
    mimeType,
    ...(attachment.filename === undefined ? {} : { name: attachment.filename }),
    bytes: content.length,
    // The mail was already fetched whole (IMAP has no lazy part fetch through this path): the cut only bounds what
    // the core receives.
    fetch: (maxBytes, signal) => {
      signal.throwIfAborted();
      return Promise.resolve(content.subarray(0, Math.max(0, maxBytes)));
    },
  };
}
