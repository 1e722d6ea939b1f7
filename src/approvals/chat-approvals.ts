// Approvals in chats: a gated call of a channel session is also posted to its chat with a short code; an operator's
// button or typed "approve <code>" resolves it (the store picks the first answer, wherever it came from), and the post
// is settled however the request ended — a system ending (turn gone, restart) also tells the chat why.
import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import type { ChannelDelivery, ChatRef, InboundApprovalAnswer } from '../channels/index.js';
import { redactSecrets } from '../config/index.js';
import { isGatewayError } from '../errors.js';
import type { EventBus } from '../events/index.js';
import type { ApprovalPort } from '../store/index.js';
import type { ApprovalService } from './approval-service.js';
import { CHANNEL_RESOLVER_PREFIX, chatNotice, resolverName } from './chat-texts.js';

/** Unambiguous characters of a code (no 0/O, 1/I/L): operators type it back. */
const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const APPROVAL_CODE_LENGTH = 5;
/** Characters of the arguments shown with a request in the chat. */
export const APPROVAL_SUMMARY_MAX_CHARS = 600;
/** Decided requests whose code an operator may still type (answered with how it ended). */
const REMEMBERED_DECISIONS = 1_000;
/** Notices waiting for their connection to start (after a restart); the oldest is dropped past it. */
const PARKED_NOTICES_MAX = 500;
/** A typed answer: `approve 7Q2KM` / `deny 7q2km`, nothing else in the message. */
const TYPED_ANSWER = /^\s*(approve|deny)\s+([A-Za-z0-9]{4,8})\s*[.!]?\s*$/i;

export interface ChatApprovalsDeps {
  channels: Pick<ChannelDelivery, 'forSession' | 'askApproval' | 'settleApproval' | 'deliver' | 'onApprovalAnswer'>;
  approvals: Pick<ApprovalService, 'resolve'>;
  requests: Pick<ApprovalPort, 'get'>;
  /** The connection's `allow.senders`: the operators who may answer in its chats ("*": any sender). */
  operators: (channelId: string) => readonly string[] | undefined;
  events: Pick<EventBus, 'subscribe'>;
  newCode?: () => string;
  log: Logger;
}

interface Posted {
  chat: ChatRef;
  code: string;
  toolName: string;
  summary: string;
  /** Resolves to the post's message id, or undefined when it could not be posted. */
  posting: Promise<string | undefined>;
}

export interface ChatApprovals {
  /** A chat message that answers a request posted in that chat ("approve <code>"); undefined for any other. */
  typedAnswer(
    channelId: string,
    message: { chatId: string; senderId: string; text: string },
  ): InboundApprovalAnswer | undefined;
  /** Resolves once every post, settle and notice started has ended. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const randomCode = () =>
  Array.from({ length: APPROVAL_CODE_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');

function summarise(args: unknown): string {
  const text = JSON.stringify(redactSecrets(args)) ?? 'null';
  return text.length <= APPROVAL_SUMMARY_MAX_CHARS ? text : `${text.slice(0, APPROVAL_SUMMARY_MAX_CHARS - 1)}…`;
}

export function createChatApprovals(deps: ChatApprovalsDeps): ChatApprovals {
  const { log } = deps;
  const newCode = deps.newCode ?? randomCode;
  const posted = new Map<string, Posted>();
  /** `<channelId>\0<code>` → request id, for pending and recently decided posts. */
  const codes = new Map<string, string>();
  const decided: string[] = [];
  const running = new Set<string>();
  const parked: { chat: ChatRef; text: string }[] = [];
  const work = new Set<Promise<unknown>>();
  const codeKey = (channelId: string, code: string) => `${channelId}\u0000${code.toUpperCase()}`;

  function track(task: Promise<unknown>): void {
    const guarded = task.catch((error: unknown) => log.error({ err: error }, 'chat approval work failed'));
    work.add(guarded);
    void guarded.finally(() => work.delete(guarded));
  }

  async function tell(chat: ChatRef, text: string): Promise<void> {
    if (!running.has(chat.channelId)) {
      // After a restart the connection starts after approvals recover: the notice waits for it.
      parked.push({ chat, text });
      if (parked.length > PARKED_NOTICES_MAX) parked.shift();
      return;
    }
    const outcome = await deps.channels.deliver({ ...chat, text });
    if (!outcome.delivered)
      log.warn({ channelId: chat.channelId, error: outcome.error }, 'approval notice not delivered to the chat');
  }

  function uniqueCode(channelId: string): string {
    for (;;) {
      const code = newCode().toUpperCase();
      const taken = codes.get(codeKey(channelId, code));
      if (taken === undefined || !posted.has(taken)) return code;
    }
  }

  async function requested(requestId: string, sessionKey: string, toolName: string): Promise<void> {
    const chat = await deps.channels.forSession(sessionKey);
    if (chat === undefined) return;
    const request = await deps.requests.get(requestId);
    if (request?.status !== 'pending') return;
    const code = uniqueCode(chat.channelId);
    const summary = summarise(request.args);
    const posting = deps.channels
      .askApproval(chat.channelId, {
        chatId: chat.chatId,
        ...(chat.threadId === undefined ? {} : { threadId: chat.threadId }),
        requestId,
        code,
        toolName,
        summary,
      })
      .then(
        ({ messageId }) => messageId,
        (error: unknown) => {
          log.warn({ err: error, requestId, channelId: chat.channelId }, 'approval request not posted to the chat');
          return undefined;
        },
      );
    posted.set(requestId, { chat, code, toolName, summary, posting });
    codes.set(codeKey(chat.channelId, code), requestId);
    await posting;
  }

  function remember(requestId: string, entry: Posted): void {
    decided.push(codeKey(entry.chat.channelId, entry.code));
    while (decided.length > REMEMBERED_DECISIONS) {
      const old = decided.shift();
      if (old !== undefined && !posted.has(codes.get(old) ?? '')) codes.delete(old);
    }
    posted.delete(requestId);
  }

  async function resolved(event: {
    requestId: string;
    sessionKey: string;
    toolName: string;
    approved: boolean;
    resolvedBy: string;
  }): Promise<void> {
    const entry = posted.get(event.requestId);
    const isSystem = event.resolvedBy.startsWith('system:');
    if (entry === undefined) {
      // Not posted by this process (a request a stopped gateway left): the chat still hears how it ended.
      if (!isSystem) return;
      const chat = await deps.channels.forSession(event.sessionKey);
      if (chat !== undefined) await tell(chat, chatNotice(event.resolvedBy, event.toolName));
      return;
    }
    const messageId = await entry.posting;
    remember(event.requestId, entry);
    if (messageId !== undefined) {
      await deps.channels
        .settleApproval(entry.chat.channelId, {
          chatId: entry.chat.chatId,
          ...(entry.chat.threadId === undefined ? {} : { threadId: entry.chat.threadId }),
          requestId: event.requestId,
          code: entry.code,
          toolName: entry.toolName,
          summary: entry.summary,
          messageId,
          approved: event.approved,
          by: resolverName(event.resolvedBy),
        })
        .catch((error: unknown) =>
          log.warn({ err: error, requestId: event.requestId }, 'approval post in the chat not settled'),
        );
    }
    if (isSystem) await tell(entry.chat, chatNotice(event.resolvedBy, entry.toolName, entry.code));
  }

  async function answered(channelId: string, answer: InboundApprovalAnswer): Promise<void> {
    const operators = deps.operators(channelId) ?? [];
    if (!operators.includes('*') && !operators.includes(answer.senderId)) {
      log.warn({ channelId, senderId: answer.senderId }, 'approval answer from a sender not on allow.senders ignored');
      return;
    }
    const requestId = codes.get(codeKey(channelId, answer.requestRef)) ?? answer.requestRef;
    const request = await deps.requests.get(requestId);
    const chat = request === undefined ? undefined : await deps.channels.forSession(request.sessionKey);
    const here = {
      channelId,
      chatId: answer.chatId,
      ...(chat?.threadId === undefined ? {} : { threadId: chat.threadId }),
    };
    // A request of another chat is not this operator's to answer from here.
    if (request === undefined || chat?.channelId !== channelId || chat.chatId !== answer.chatId) {
      await tell(here, `No approval request here matches ${answer.requestRef}.`);
      return;
    }
    if (request.status !== 'pending') {
      await tell(here, `Already decided: ${request.status} by ${resolverName(request.resolvedBy ?? 'someone')}.`);
      return;
    }
    try {
      await deps.approvals.resolve(requestId, {
        approved: answer.approved,
        resolvedBy: `${CHANNEL_RESOLVER_PREFIX}${channelId}:${answer.senderId}`,
      });
    } catch (error) {
      if (!isGatewayError(error) || error.kind !== 'conflict') throw error;
      const now = await deps.requests.get(requestId);
      await tell(here, `Already decided: ${now?.status ?? 'ended'} by ${resolverName(now?.resolvedBy ?? 'someone')}.`);
    }
  }

  const unsubscribe = deps.events.subscribe((event) => {
    if (event.name === 'approval:requested') {
      const { requestId, sessionKey, toolName } = event.payload;
      track(requested(requestId, sessionKey, toolName));
    } else if (event.name === 'approval:resolved') track(resolved(event.payload));
    else if (event.name === 'channel:registered') {
      running.add(event.payload.channelId);
      const due = parked.filter((notice) => notice.chat.channelId === event.payload.channelId);
      parked.splice(0, parked.length, ...parked.filter((notice) => !due.includes(notice)));
      for (const notice of due) track(tell(notice.chat, notice.text));
    } else if (event.name === 'channel:deregistered') running.delete(event.payload.channelId);
  });
  const stopAnswers = deps.channels.onApprovalAnswer((channelId, answer) => track(answered(channelId, answer)));

  async function idle(): Promise<void> {
    while (work.size > 0) await Promise.all([...work]);
  }

  return {
    typedAnswer(channelId, message) {
      const match = TYPED_ANSWER.exec(message.text);
      if (match === null) return undefined;
      const [, verb = '', code = ''] = match;
      if (!codes.has(codeKey(channelId, code))) return undefined;
      return {
        chatId: message.chatId,
        senderId: message.senderId,
        requestRef: code,
        approved: verb.toLowerCase() === 'approve',
      };
    },
    idle,
    async close() {
      stopAnswers();
      await idle();
      unsubscribe();
    },
  };
}
