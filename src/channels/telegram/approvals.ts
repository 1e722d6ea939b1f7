// Approval requests in Telegram: the inline keyboard whose buttons carry `ap:<ref>:y|n`, the request's text, and
// the text it is edited to once decided.
import type { ApprovalPrompt } from '../types.js';

/** Telegram refuses an inline button whose callback_data is longer than this many bytes. */
export const MAX_CALLBACK_DATA_BYTES = 64;
/** Characters of one Telegram message (text after entity parsing). */
export const TELEGRAM_MAX_MESSAGE_CHARS = 4096;

const CALLBACK_DATA = /^ap:(.+):([yn])$/;

function callbackData(ref: string, approved: boolean): string {
  return `ap:${ref}:${approved ? 'y' : 'n'}`;
}

/** The request id when its buttons' data fit Telegram's limit, else the short code (the core resolves either). */
function requestRef(prompt: Pick<ApprovalPrompt, 'requestId' | 'code'>): string {
  const fits = Buffer.byteLength(callbackData(prompt.requestId, true), 'utf8') <= MAX_CALLBACK_DATA_BYTES;
  return fits ? prompt.requestId : prompt.code;
}

export function approvalKeyboard(prompt: Pick<ApprovalPrompt, 'requestId' | 'code'>) {
  const ref = requestRef(prompt);
  return {
    inline_keyboard: [
      [
        { text: 'Approve', callback_data: callbackData(ref, true) },
        { text: 'Deny', callback_data: callbackData(ref, false) },
      ],
    ],
  };
}

/** The approval a button press carries, or undefined for any other callback data. */
export function parseCallbackData(data: string): { requestRef: string; approved: boolean } | undefined {
  const match = CALLBACK_DATA.exec(data);
  if (match === null) return undefined;
  const [, ref = '', answer] = match;
  return { requestRef: ref, approved: answer === 'y' };
}

/** Cut to `max` characters with an ellipsis, so a long summary never makes Telegram refuse the whole request. */
function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** Characters kept free after the request text for the line saying who decided. */
const DECISION_ROOM = 200;

export function approvalText(prompt: Pick<ApprovalPrompt, 'toolName' | 'summary' | 'code'>): string {
  const head = `Approval needed: ${clip(prompt.toolName, 200)} (code ${prompt.code})`;
  const room = TELEGRAM_MAX_MESSAGE_CHARS - DECISION_ROOM - head.length - 2;
  return `${head}\n\n${clip(prompt.summary, room)}`;
}

export function decisionLine(approved: boolean, by: string): string {
  return `${approved ? '✅ Approved' : '❌ Denied'} by ${clip(by, DECISION_ROOM - 20)}`;
}

export function settledText(
  prompt: Pick<ApprovalPrompt, 'toolName' | 'summary' | 'code'>,
  approved: boolean,
  by: string,
) {
  return `${approvalText(prompt)}\n\n${decisionLine(approved, by)}`;
}
