// A transcript rendered as chat bubbles; tool calls and their results are collapsible steps; a failed message is
// marked with its error and a Retry button; a turn without text yet says what it waits for.
import type { TranscriptMessage } from '../lib/transcript';

function ToolStep({ message }: { message: Extract<TranscriptMessage, { role: 'tool' }> }) {
  return (
    <details class="msg tool">
      <summary>
        Tool result: <code>{message.toolName}</code>{' '}
        {message.isError ? <span class="badge bad">error</span> : <span class="badge ok">ok</span>}
      </summary>
      <pre>{message.content}</pre>
    </details>
  );
}

/** A message the gateway did not answer: its text, why, and a way to send it again. */
export interface FailedMessage {
  content: string;
  error: string;
  onRetry: () => void;
}

function FailedBubble({ failed }: { failed: FailedMessage }) {
  return (
    <div class="msg user failed">
      <span class="sr-only">You: </span>
      {failed.content}
      <p class="msg-error" role="alert">
        Not answered: {failed.error}
      </p>
      <button type="button" onClick={failed.onRetry}>
        Retry
      </button>
    </div>
  );
}

/**
 * `streaming`: the answer so far while a turn runs; `activity`: what the turn waits for while no text has come yet;
 * `failed`: the last message sent, when its turn failed (marked where it stands in the transcript, or appended).
 */
export function TranscriptView({
  messages,
  streaming,
  activity,
  failed,
}: {
  messages: readonly TranscriptMessage[];
  streaming?: string | undefined;
  activity?: string | undefined;
  failed?: FailedMessage | undefined;
}) {
  const last = messages.at(-1);
  const failedIndex =
    failed !== undefined && last?.role === 'user' && last.content === failed.content ? messages.length - 1 : -1;
  return (
    <div class="chat-log" role="log" aria-label="Conversation" aria-live="polite">
      {messages.length === 0 && streaming === undefined ? <p class="muted">No messages yet.</p> : null}
      {messages.map((message, index) => {
        if (index === failedIndex && failed !== undefined) return <FailedBubble key={index} failed={failed} />;
        if (message.role === 'tool') return <ToolStep key={index} message={message} />;
        if (message.role === 'assistant' && message.toolCalls !== undefined && message.toolCalls.length > 0) {
          return (
            <div key={index} class="stack">
              {message.content === '' ? null : <div class="msg assistant">{message.content}</div>}
              {message.toolCalls.map((toolCall) => (
                <details key={toolCall.id} class="msg tool">
                  <summary>
                    Tool call: <code>{toolCall.name}</code>
                  </summary>
                  <pre>{JSON.stringify(toolCall.input, null, 2)}</pre>
                </details>
              ))}
            </div>
          );
        }
        return (
          <div key={index} class={`msg ${message.role}`}>
            <span class="sr-only">
              {message.role === 'user' ? 'You: ' : message.role === 'assistant' ? 'Agent: ' : 'System: '}
            </span>
            {message.content}
          </div>
        );
      })}
      {failed !== undefined && failedIndex === -1 ? <FailedBubble failed={failed} /> : null}
      {streaming === undefined ? null : streaming === '' ? (
        <div class="msg assistant waiting" data-streaming="true" role="status">
          {activity ?? 'Thinking…'}
        </div>
      ) : (
        <div class="msg assistant" data-streaming="true">
          {streaming}
        </div>
      )}
    </div>
  );
}
