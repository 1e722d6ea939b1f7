// One session: its incident report, its turns' traces, orchestrate runs, terminal drives, transcript, and export, reset and delete.
import { useState } from 'preact/hooks';
import { errorText } from '../lib/format';
import { call } from '../lib/rpc';
import { BASE, navigate, onLinkClick } from '../lib/router';
import { useAsync } from '../lib/use-async';
import { IncidentReportView } from './incident-report';
import { OrchestrateRuns } from './orchestrate-runs';
import { TerminalDrives } from './terminal-drives';
import { TranscriptView } from './transcript-view';
import { SessionTurns } from './turn-trace';
import { ErrorNotice, KeyValues, Loading, Notice, Section } from './ui';
import { formatTime } from '../lib/format';

function download(name: string, value: unknown): void {
  const url = URL.createObjectURL(new Blob([JSON.stringify(value, null, 2)], { type: 'application/json' }));
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = name;
  anchor.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function SessionDetail({ sessionKey }: { sessionKey: string }) {
  const session = useAsync(() => call('session.export', { session_key: sessionKey }), [sessionKey]);
  const report = useAsync(() => call('obs.explain', { sessionKey }), [sessionKey]);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [actionError, setActionError] = useState<unknown>(undefined);

  async function act(run: () => Promise<string>) {
    setActionError(undefined);
    try {
      setMessage(await run());
    } catch (error) {
      setActionError(error);
    }
  }
  const reset = () =>
    act(async () => {
      if (!confirm(`Clear every message of ${sessionKey}?`)) return 'Nothing changed.';
      const result = await call('session.reset', { session_key: sessionKey });
      session.reload();
      return `Cleared ${result.previousMessageCount} messages.`;
    });
  const remove = () =>
    act(async () => {
      if (!confirm(`Delete ${sessionKey} and its transcript?`)) return 'Nothing changed.';
      await call('session.delete', { session_key: sessionKey });
      navigate('sessions');
      return 'Deleted.';
    });
  return (
    <>
      <p>
        <a href={`${BASE}sessions`} onClick={onLinkClick}>
          ← All sessions
        </a>
      </p>
      <Section
        title={sessionKey}
        actions={
          <>
            <button
              type="button"
              disabled={session.data === undefined}
              onClick={() => download(`${sessionKey.replace(/:/g, '_')}.json`, session.data)}
            >
              Export
            </button>
            <button type="button" onClick={() => void reset()}>
              Reset
            </button>
            <button type="button" class="danger" onClick={() => void remove()}>
              Delete
            </button>
          </>
        }
      >
        {message === undefined ? null : <Notice tone="ok">{message}</Notice>}
        <ErrorNotice error={actionError} />
        <Loading isLoading={session.isLoading} />
        <ErrorNotice error={session.error} />
        {session.data === undefined ? null : (
          <KeyValues
            rows={[
              ['Messages', session.data.messageCount],
              ['Created', formatTime(session.data.createdAt)],
              ['Updated', formatTime(session.data.updatedAt)],
            ]}
          />
        )}
      </Section>
      <Section title="Incident report">
        <Loading isLoading={report.isLoading} />
        {report.error === undefined ? null : (
          <p class="notice error" role="alert">
            {errorText(report.error)}
          </p>
        )}
        {report.data === undefined ? null : <IncidentReportView report={report.data} />}
      </Section>
      <SessionTurns sessionKey={sessionKey} />
      <OrchestrateRuns
        sessionKey={sessionKey}
        entries={report.data === undefined || 'marker' in report.data ? [] : (report.data.orchestrate ?? [])}
        onChange={() => report.reload()}
      />
      <TerminalDrives sessionKey={sessionKey} />
      <Section title="Transcript">
        {session.data === undefined ? null : <TranscriptView messages={session.data.messages} />}
      </Section>
    </>
  );
}
