// A transcript rendered as chat bubbles; tool calls and their results are collapsible steps.
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

export function TranscriptView({
  messages,
  streaming,
}: {
  messages: readonly TranscriptMessage[];
  streaming?: string | undefined;
}) {
  return (
    <div class="chat-log" role="log" aria-label="Conversation" aria-live="polite">
      {messages.length === 0 && streaming === undefined ? <p class="muted">No messages yet.</p> : null}
      {messages.map((message, index) => {
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
      {streaming === undefined ? null : (
        <div class="msg assistant" data-streaming="true">
          {streaming}
        </div>
      )}
    </div>
  );
}
