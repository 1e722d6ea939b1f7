// Chat: talk to any agent with token-by-token streaming (/api/chat/stream), the session's history and its tool steps,
// and feedback on the latest answer.
import { useEffect, useRef, useState } from 'preact/hooks';
import { AnswerFeedback } from '../components/answer-feedback';
import { TranscriptView } from '../components/transcript-view';
import { ErrorNotice, Field, PageTitle, Section } from '../components/ui';
import { errorText } from '../lib/format';
import { subscribeEvents } from '../lib/live-events';
import { call, RpcError } from '../lib/rpc';
import { navigate, pathWith, route } from '../lib/router';
import { readSse } from '../lib/sse';
import { listAgents, type TranscriptMessage } from '../lib/transcript';
import { useAsync } from '../lib/use-async';

function newSessionKey(): string {
  return `default:dashboard:dashboard:${crypto.randomUUID().slice(0, 8)}`;
}

/** The message of an `event: error` frame ({error: {code, message}}). */
function streamErrorMessage(error: unknown): string {
  return typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string'
    ? error.message
    : 'The turn failed';
}

async function loadTranscript(sessionKey: string): Promise<TranscriptMessage[]> {
  try {
    return (await call('session.export', { session_key: sessionKey })).messages;
  } catch (error) {
    if (error instanceof RpcError && error.kind === 'not_found') return [];
    throw error;
  }
}

export default function ChatPage() {
  const query = route.value.query;
  const sessionKey = query.get('session') ?? '';
  const agentId = query.get('agent') ?? '';
  const agents = useAsync(listAgents, []);
  const [messages, setMessages] = useState<TranscriptMessage[]>([]);
  const [streaming, setStreaming] = useState<string | undefined>(undefined);
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  // The last turn sent from here ended in an error: its message is marked, and it is the session's last finished
  // turn, so feedback (which rates that turn) would not rate the answer on screen.
  const [failure, setFailure] = useState<{ content: string; error: string } | undefined>(undefined);
  // What a running turn waits for before its first text: an approval, a tool call, or the next model call after tools.
  const [activity, setActivity] = useState<string | undefined>(undefined);
  const turnFailed = failure !== undefined;
  const abort = useRef<AbortController | null>(null);

  useEffect(() => {
    if (sessionKey === '') {
      navigate(pathWith('chat', { session: newSessionKey(), agent: agentId }), { replace: true });
      return;
    }
    setMessages([]);
    setFailure(undefined);
    loadTranscript(sessionKey).then(setMessages, setError);
  }, [sessionKey]);
  useEffect(() => () => abort.current?.abort(), []);
  useEffect(
    () =>
      subscribeEvents(({ name, data }) => {
        if (data.sessionKey !== sessionKey) return;
        const tool = typeof data.toolName === 'string' ? data.toolName : 'a tool';
        if (name === 'approval:requested') setActivity(`Waiting for approval: ${tool}`);
        else if (name === 'approval:resolved')
          setActivity(`${tool} ${data.approved === true ? 'approved' : 'denied'}; continuing…`);
        else if (name === 'message:streaming' && typeof data.step === 'number' && data.step > 1)
          setActivity(`Reading the tool results (step ${data.step})…`);
      }),
    [sessionKey],
  );

  async function send(event: Event) {
    event.preventDefault();
    const message = draft.trim();
    if (message === '' || streaming !== undefined) return;
    setDraft('');
    await run(message);
  }

  async function run(message: string) {
    setError(undefined);
    setFailure(undefined);
    setActivity(undefined);
    const fail = (why: string) => setFailure({ content: message, error: why });
    // A retry replaces its failed message at the end rather than showing it twice.
    setMessages((current) => {
      const last = current.at(-1);
      const kept = last?.role === 'user' && last.content === message ? current.slice(0, -1) : current;
      return [...kept, { role: 'user', content: message, timestamp: Date.now() }];
    });
    setStreaming('');
    const controller = new AbortController();
    abort.current = controller;
    const params = new URLSearchParams({ message, sessionKey });
    if (agentId !== '') params.set('agentId', agentId);
    try {
      await readSse(`/api/chat/stream?${params.toString()}`, {
        signal: controller.signal,
        onEvent(frame) {
          const data: unknown = JSON.parse(frame.data);
          if (typeof data !== 'object' || data === null) return;
          if (frame.event === 'token' && 'accumulated' in data && typeof data.accumulated === 'string')
            setStreaming(data.accumulated);
          else if (frame.event === 'tool' && 'status' in data && data.status === 'started' && 'name' in data)
            setActivity(`Calling tool ${String(data.name)}…`);
          else if (frame.event === 'error' && 'error' in data) fail(streamErrorMessage(data.error));
          else if (frame.event === 'done' && 'error' in data && typeof data.error === 'string') fail(data.error);
        },
      });
      setMessages(await loadTranscript(sessionKey));
    } catch (caught) {
      fail(controller.signal.aborted ? 'Stopped.' : errorText(caught));
    } finally {
      setStreaming(undefined);
      setActivity(undefined);
    }
  }

  const isAnswer = (message: TranscriptMessage | undefined) => message?.role === 'assistant' && message.content !== '';
  const answers = messages.filter(isAnswer).length;
  // Feedback rates the session's last finished turn: offered only when that turn's answer is the last message shown.
  const canRate = streaming === undefined && !turnFailed && isAnswer(messages.at(-1));
  return (
    <>
      <PageTitle>Chat</PageTitle>
      <Section
        title="Conversation"
        actions={
          <>
            <label for="chat-agent">Agent</label>
            <select
              id="chat-agent"
              value={agentId}
              onChange={(event) =>
                navigate(pathWith('chat', { session: sessionKey, agent: event.currentTarget.value }), { replace: true })
              }
            >
              <option value="">Default agent</option>
              {(agents.data ?? []).map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agent.name} ({agent.id})
                </option>
              ))}
            </select>
            <button
              type="button"
              onClick={() => navigate(pathWith('chat', { session: newSessionKey(), agent: agentId }))}
            >
              New conversation
            </button>
          </>
        }
      >
        <p class="muted">
          Session <code>{sessionKey}</code>
        </p>
        <TranscriptView
          messages={messages}
          streaming={streaming}
          activity={activity}
          failed={
            failure === undefined || streaming !== undefined
              ? undefined
              : { ...failure, onRetry: () => void run(failure.content) }
          }
        />
        {canRate ? <AnswerFeedback sessionKey={sessionKey} answerCount={answers} /> : null}
        <ErrorNotice error={error} />
        <form onSubmit={(event) => void send(event)} class="stack">
          <Field id="chat-message" label="Message">
            {(props) => (
              <textarea
                {...props}
                rows={3}
                value={draft}
                onInput={(event) => setDraft(event.currentTarget.value)}
                onKeyDown={(event) => {
                  if (event.key === 'Enter' && !event.shiftKey) void send(event);
                }}
              />
            )}
          </Field>
          <div class="row">
            <button type="submit" class="primary" disabled={streaming !== undefined || draft.trim() === ''}>
              {streaming === undefined ? 'Send' : 'Streaming…'}
            </button>
            {streaming === undefined ? null : (
              <button type="button" onClick={() => abort.current?.abort()}>
                Stop
              </button>
            )}
          </div>
        </form>
      </Section>
    </>
  );
}
