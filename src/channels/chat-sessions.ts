// The sessions of chats: the key `<tenant>:<senderId>:<channelId>:<chatId>`, the fresh key `/new` moves a chat to
// (remembered in the base session's metadata, so it outlives a restart), and a channel session's chat for approvals.
import type { SessionCaller } from '../agents/index.js';
import { createRecentMap } from '../recent-map.js';
import { makeSessionKey } from '../sessions/index.js';
import type { ParsedSessionKey } from '../sessions/types.js';
import type { SessionPort } from '../store/index.js';
import type { TurnService } from '../turns/index.js';

/** Owner id prefix of channel sessions: token ids never contain ':' so no token can own one (like system:webhook). */
export const CHANNEL_OWNER_PREFIX = 'system:channel:';
/** Chats whose current key is remembered in memory; the rest are read back from the base session. */
const REMEMBERED_CHATS = 10_000;
/** Separates a chat id from the suffix `/new` gives it: `<chatId>~new<base36 time>`. */
const NEW_SESSION_MARK = '~new';

/** The tenant a connection's caller may open sessions in: the one its config names (`channels.<id>.tenantId`). */
export function channelTenants(channels: Readonly<Record<string, { tenantId: string }>>, callerId: string): string[] {
  if (!callerId.startsWith(CHANNEL_OWNER_PREFIX)) return [];
  const channel = Object.entries(channels).find(([id]) => id === callerId.slice(CHANNEL_OWNER_PREFIX.length))?.[1];
  return channel === undefined ? [] : [channel.tenantId];
}

export const channelCaller = (channelId: string): SessionCaller => ({
  clientId: `${CHANNEL_OWNER_PREFIX}${channelId}`,
  isAdmin: false,
});

/** A chat of a connection: where a reply, a heartbeat or an approval request goes. */
export interface ChatRef {
  channelId: string;
  chatId: string;
  threadId?: string;
}

export interface ChatScope {
  channelId: string;
  channelType: string;
  tenantId: string;
  agentId: string;
}

export interface ChatSessions {
  /** The key the chat's next turn runs on, its session ensured (owned by the connection, the chat in its metadata). */
  current(scope: ChatScope, senderId: string, chat: ChatRef): Promise<ParsedSessionKey>;
  /** Moves the chat to a fresh key: the next message starts a new session. */
  startNew(scope: ChatScope, senderId: string, chat: ChatRef): Promise<void>;
  /** The chat a channel session belongs to; undefined for any other session. */
  forSession(sessionKey: string): Promise<ChatRef | undefined>;
}

export interface ChatSessionsDeps {
  turns: Pick<TurnService, 'ensureSession'>;
  sessions: Pick<SessionPort, 'get' | 'updateMetadata'>;
  now: () => number;
}

/** A platform id as a key part: ':' (the key's separator) and '%' escaped, composed to NFC. */
function keyPart(id: string): string {
  return id.normalize('NFC').replaceAll('%', '%25').replaceAll(':', '%3A');
}

export function createChatSessions({ turns, sessions, now }: ChatSessionsDeps): ChatSessions {
  const currentPart = createRecentMap<string, string>(REMEMBERED_CHATS);

  const baseKey = (scope: ChatScope, senderId: string, chatId: string) =>
    makeSessionKey({
      tenantId: scope.tenantId,
      userId: keyPart(senderId),
      channelId: scope.channelId,
      peerId: keyPart(chatId),
    });

  const chatMetadata = (scope: ChatScope, chat: ChatRef) => ({
    channelType: scope.channelType,
    channelId: scope.channelId,
    chatId: chat.chatId,
    ...(chat.threadId === undefined ? {} : { threadId: chat.threadId }),
  });

  async function ensure(scope: ChatScope, key: ParsedSessionKey, chat: ChatRef) {
    return turns.ensureSession({
      ...key,
      agentId: scope.agentId,
      caller: channelCaller(scope.channelId),
      metadata: chatMetadata(scope, chat),
    });
  }

  return {
    async current(scope, senderId, chat) {
      const base = baseKey(scope, senderId, chat.chatId);
      let part = currentPart.get(base.sessionKey);
      if (part === undefined) {
        const stored = (await sessions.get(base.sessionKey))?.metadata.channelChat;
        part = typeof stored === 'string' ? stored : (base.keyParts.peerId ?? keyPart(chat.chatId));
        currentPart.set(base.sessionKey, part);
      }
      const key = part === base.keyParts.peerId ? base : makeSessionKey({ ...base.keyParts, peerId: part });
      await ensure(scope, key, chat);
      return key;
    },
    async startNew(scope, senderId, chat) {
      const base = baseKey(scope, senderId, chat.chatId);
      const { session } = await ensure(scope, base, chat);
      const part = `${keyPart(chat.chatId)}${NEW_SESSION_MARK}${now().toString(36)}`;
      await sessions.updateMetadata(base.sessionKey, { ...session.metadata, channelChat: part }, now());
      currentPart.set(base.sessionKey, part);
    },
    async forSession(sessionKey) {
      const session = await sessions.get(sessionKey);
      if (session === undefined) return undefined;
      const { channelId, chatId, threadId } = session.metadata;
      if (typeof channelId !== 'string' || typeof chatId !== 'string') return undefined;
      if (session.ownerId !== `${CHANNEL_OWNER_PREFIX}${channelId}`) return undefined;
      return { channelId, chatId, ...(typeof threadId === 'string' ? { threadId } : {}) };
    },
  };
}
