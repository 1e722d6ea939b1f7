// channels.* methods (admin): the connections with their state and counters, a live test of one, and a send.
import { z } from 'zod';
import { channelNotFound, channelUnavailable } from '../errors.js';
import { defineMethod, noParams } from '../rpc/index.js';
import type { Connections } from './connections.js';

/** How long channels.test waits for the platform's answer. */
export const CHANNEL_TEST_TIMEOUT_MS = 10_000;
/** Characters channels.send accepts (the outbound path chunks them to the platform's limit). */
export const MAX_SEND_CHARS = 100_000;

const channelId = z.string().min(1).max(256);

export function channelMethods(connections: Connections) {
  return [
    defineMethod({
      name: 'channels.list',
      scope: 'admin',
      summary:
        'The chat connections under `channels`: kind, agentId, enabled, state (connecting, connected, degraded, disconnected, failed, disabled), lastActivityAt, error, and received, sent, ignored and failedDeliveries since the connection started.',
      params: noParams,
      handler: () => ({
        channels: connections.statuses().map(({ lastActivityAt, ...status }) => ({ ...status, lastActivityAt })),
      }),
    }),
    defineMethod({
      name: 'channels.test',
      scope: 'admin',
      summary: `Makes one authenticated call to the connection's platform (getMe, auth.test, SMTP verify), waiting at most ${CHANNEL_TEST_TIMEOUT_MS / 1000} s: {ok, detail}; a failure answers ok false with the error. Unknown id: not_found.`,
      params: z.strictObject({ id: channelId }),
      handler: async ({ id }, ctx) => {
        if (!connections.has(id)) throw channelNotFound(id);
        const connection = connections.get(id);
        if (connection === undefined) {
          const status = connections.statuses().find((entry) => entry.id === id);
          return { ok: false, detail: status?.enabled === false ? 'disabled' : (status?.error ?? 'not running') };
        }
        try {
          const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(CHANNEL_TEST_TIMEOUT_MS)]);
          const { detail } = await connection.adapter.test(signal);
          return { ok: true, detail };
        } catch (error) {
          return { ok: false, detail: error instanceof Error ? error.message : String(error) };
        }
      },
    }),
    defineMethod({
      name: 'channels.send',
      scope: 'admin',
      summary:
        "Sends a text to a chat of a connection through its outbound path (chunked to the platform's limit, queued, retried): {delivered, messageIds, error?}. Unknown id: not_found; disabled or not running: unavailable.",
      params: z.strictObject({
        id: channelId,
        chatId: z.string().min(1).max(256),
        text: z.string().min(1).max(MAX_SEND_CHARS),
        threadId: z.string().min(1).max(256).optional(),
      }),
      handler: async ({ id, chatId, text, threadId }) => {
        if (!connections.has(id)) throw channelNotFound(id);
        const connection = connections.get(id);
        if (connection === undefined) throw channelUnavailable(id, 'it is disabled or failed to start');
        const outcome = await connection.send(
          { channelId: id, chatId, ...(threadId === undefined ? {} : { threadId }) },
          text,
        );
        return {
          delivered: outcome.delivered,
          messageIds: outcome.messageIds,
          ...(outcome.error === undefined ? {} : { error: outcome.error }),
        };
      },
    }),
  ];
}
