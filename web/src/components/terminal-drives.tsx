// A session's terminal drives: state, age and interactions, a live read-only view of a drive's output, and Close.
import { useEffect, useState } from 'preact/hooks';
import { formatDuration } from '../lib/format';
import { call, type ResultOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';
import { ErrorNotice, Notice, Section } from './ui';
import { TableExport } from './table-export';

type Drive = ResultOf<'terminal.list'>['drives'][number];

/** How often the open view asks for the drive's newest output (terminal.read never moves the agent's cursor). */
const OUTPUT_POLL_MS = 1_000;
/** Characters of output the view shows: the newest. */
const VIEW_CHARS = 20_000;

function DriveOutput({ driveId }: { driveId: string }) {
  const [output, setOutput] = useState<ResultOf<'terminal.read'> | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    let isCurrent = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const read = await call('terminal.read', { driveId, maxChars: VIEW_CHARS });
        if (!isCurrent) return;
        setOutput(read);
        setError(undefined);
      } catch (failure) {
        if (!isCurrent) return;
        setError(failure);
      }
      if (isCurrent) timer = setTimeout(() => void poll(), OUTPUT_POLL_MS);
    };
    void poll();
    return () => {
      isCurrent = false;
      clearTimeout(timer);
    };
  }, [driveId]);
  return (
    <div aria-label={`Output of ${driveId}`}>
      <ErrorNotice error={error} />
      {output === undefined ? null : (
        <>
          <p class="muted">
            {output.state}
            {output.exitCode === undefined ? '' : ` (exit ${output.exitCode})`}
            {output.dropped ? ' · older output was dropped' : ''}
          </p>
          <pre>{output.output}</pre>
        </>
      )}
    </div>
  );
}

export function TerminalDrives({ sessionKey }: { sessionKey: string }) {
  const drives = useAsync(() => call('terminal.list', { sessionKey }), [sessionKey]);
  const [watched, setWatched] = useState<string | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const list: readonly Drive[] = drives.data?.drives ?? [];
  if (list.length === 0 && message === undefined) return null;

  async function close(driveId: string) {
    setActionError(undefined);
    if (!confirm(`Close terminal drive ${driveId}? The shell and its output are gone afterwards.`)) return;
    try {
      await call('terminal.close', { driveId });
      setMessage(`Closed ${driveId}.`);
      if (watched === driveId) setWatched(undefined);
      drives.reload();
    } catch (error) {
      setActionError(error);
    }
  }

  return (
    <Section
      title="Terminal drives"
      actions={
        <button type="button" onClick={() => drives.reload()}>
          Refresh
        </button>
      }
    >
      {message === undefined ? null : <Notice tone="ok">{message}</Notice>}
      <ErrorNotice error={actionError ?? drives.error} />
      <TableExport name="terminal-drives">
        <table class="stacked">
          <thead>
            <tr>
              <th scope="col">Drive</th>
              <th scope="col">Agent</th>
              <th scope="col">State</th>
              <th scope="col">Age</th>
              <th scope="col">Interactions</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.map((drive) => (
              <tr key={drive.driveId}>
                <td data-label="Drive">
                  <code>{drive.driveId}</code>
                </td>
                <td data-label="Agent">{drive.agentId}</td>
                <td data-label="State">{drive.state}</td>
                <td data-label="Age">{formatDuration(drive.ageMs)}</td>
                <td data-label="Interactions">{drive.interactions}</td>
                <td data-label="Actions">
                  <div class="actions">
                    <button
                      type="button"
                      aria-pressed={watched === drive.driveId}
                      onClick={() => setWatched(watched === drive.driveId ? undefined : drive.driveId)}
                    >
                      {watched === drive.driveId ? 'Hide output' : 'View output'}
                    </button>
                    <button type="button" class="danger" onClick={() => void close(drive.driveId)}>
                      Close
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableExport>
      {watched === undefined ? null : <DriveOutput driveId={watched} />}
    </Section>
  );
}
