// Typed approval answers on platforms whose adapter only has buttons: a chat message "approve <code>" for a request
// posted in that chat reaches the core as an approval answer instead of starting a turn.
import type { AdapterFactory, ChannelAdapter, ChannelAdapterEvents } from '../channels/index.js';
import type { ChatApprovals } from './chat-approvals.js';

/** Wraps each adapter's events: `approvals()` (bound once the bridge exists) picks out typed answers. */
export function withTypedApprovalAnswers(
  factory: AdapterFactory,
  approvals: () => Pick<ChatApprovals, 'typedAnswer'> | undefined,
): AdapterFactory {
  return async (config, deps) => {
    const adapter = await factory(config, deps);
    const wrapped: ChannelAdapter = {
      kind: adapter.kind,
      maxMessageChars: adapter.maxMessageChars,
      start: (events: ChannelAdapterEvents) =>
        adapter.start({
          ...events,
          message(message) {
            const answer =
              message.attachments.length === 0 ? approvals()?.typedAnswer(deps.channelId, message) : undefined;
            if (answer === undefined) events.message(message);
            else events.approval(answer);
          },
        }),
      stop: () => adapter.stop(),
      send: (message, signal) => adapter.send(message, signal),
      typing: (chatId, threadId) => adapter.typing(chatId, threadId),
      askApproval: (prompt, signal) => adapter.askApproval(prompt, signal),
      settleApproval: (prompt) => adapter.settleApproval(prompt),
      test: (signal) => adapter.test(signal),
      ...(adapter.routes === undefined ? {} : { routes: adapter.routes }),
    };
    return wrapped;
  };
}
