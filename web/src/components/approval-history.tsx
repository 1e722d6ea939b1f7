// Decisions on gated tool calls, newest first (admin.approval.history): who decided, when, how long it waited, why.
import { useEffect, useState } from 'preact/hooks';
import { formatDuration, formatTime } from '../lib/format';
import { subscribeEvents } from '../lib/live-events';
import { call, type ResultOf } from '../lib/rpc';
import { ErrorNotice, Section } from './ui';
import { TableExport } from './table-export';

type Decision = ResultOf<'admin.approval.history'>['decisions'][number];

const PAGE_SIZE = 20;

export function ApprovalHistory() {
  const [rows, setRows] = useState<Decision[] | undefined>(undefined);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);

  async function load(cursor?: string) {
    setError(undefined);
    try {
      const page = await call('admin.approval.history', {
        limit: PAGE_SIZE,
        ...(cursor === undefined ? {} : { cursor }),
      });
      setRows((current) => (cursor === undefined ? page.decisions : [...(current ?? []), ...page.decisions]));
      setNextCursor(page.nextCursor);
    } catch (failure) {
      setError(failure);
    }
  }
  useEffect(() => {
    void load();
    return subscribeEvents((event) => {
      if (event.name === 'approval:resolved') void load();
    });
  }, []);

  return (
    <Section title="Decisions">
      <ErrorNotice error={error} />
      {rows !== undefined && rows.length === 0 ? <p class="muted">No decisions yet.</p> : null}
      {rows === undefined || rows.length === 0 ? null : (
        <TableExport name="approval-history">
          <table>
            <thead>
              <tr>
                <th scope="col">Decided</th>
                <th scope="col">Tool</th>
                <th scope="col">Agent</th>
                <th scope="col">Decision</th>
                <th scope="col">By</th>
                <th scope="col">Waited</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id}>
                  <td>{formatTime(row.resolvedAt)}</td>
                  <td>
                    <code>{row.toolName}</code>
                  </td>
                  <td>{row.agentId}</td>
                  <td>
                    <span class={`badge ${row.decision === 'approved' ? 'ok' : 'bad'}`}>{row.decision}</span>
                  </td>
                  <td>{row.resolvedBy}</td>
                  <td>{formatDuration(row.waitMs)}</td>
                  <td>{row.reason ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableExport>
      )}
      {nextCursor === null ? null : (
        <button type="button" onClick={() => void load(nextCursor)}>
          Older
        </button>
      )}
    </Section>
  );
}
