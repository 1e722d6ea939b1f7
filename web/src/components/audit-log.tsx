// The audit log, newest first, filtered on the server (kind, agent, outcome) and paged by time (older pages by `until`).
import { useState } from 'preact/hooks';
import { formatTime } from '../lib/format';
import { call } from '../lib/rpc';
import { useAsync } from '../lib/use-async';
import { ErrorNotice, Loading, Section } from './ui';

/** Rows per page (obs.audit.query clamps at 1000). */
const PAGE_SIZE = 50;

export function AuditLog() {
  const [draft, setDraft] = useState({ kind: '', agentId: '', outcome: '' });
  const [filters, setFilters] = useState(draft);
  // `until` of each page shown so far; the last one is the current page (undefined: the newest rows).
  const [pages, setPages] = useState<(number | undefined)[]>([undefined]);
  const until = pages.at(-1);
  const rows = useAsync(
    () =>
      call('obs.audit.query', {
        limit: PAGE_SIZE,
        ...(filters.kind.trim() === '' ? {} : { kind: filters.kind }),
        ...(filters.agentId.trim() === '' ? {} : { agentId: filters.agentId }),
        ...(filters.outcome.trim() === '' ? {} : { outcome: filters.outcome }),
        ...(until === undefined ? {} : { until }),
      }),
    [filters, until],
  );
  const list = rows.data?.rows ?? [];
  const oldest = list.at(-1);
  return (
    <Section title="Audit log">
      <form
        class="row"
        aria-label="Audit filters"
        onSubmit={(event) => {
          event.preventDefault();
          setPages([undefined]);
          setFilters(draft);
        }}
      >
        {(['kind', 'agentId', 'outcome'] as const).map((name) => (
          <span key={name} class="row">
            <label for={`audit-${name}`}>{name === 'agentId' ? 'Agent' : name === 'kind' ? 'Kind' : 'Outcome'}</label>
            <input
              id={`audit-${name}`}
              size={12}
              value={draft[name]}
              onInput={(event) => setDraft({ ...draft, [name]: event.currentTarget.value })}
            />
          </span>
        ))}
        <button type="submit">Filter</button>
      </form>
      <Loading isLoading={rows.isLoading} />
      <ErrorNotice error={rows.error} />
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Kind</th>
              <th scope="col">Action</th>
              <th scope="col">Actor</th>
              <th scope="col">Agent</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {list.map((row) => (
              <tr key={row.id}>
                <td>{formatTime(row.ts)}</td>
                <td>{row.kind}</td>
                <td class="wrap">{row.action}</td>
                <td>{row.actor}</td>
                <td>{row.agentId ?? '—'}</td>
                <td>
                  <span
                    class={`badge ${row.outcome === 'ok' || row.outcome === 'success' || row.outcome === 'allowed' ? 'ok' : 'warn'}`}
                  >
                    {row.outcome}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.data !== undefined && list.length === 0 ? <p class="muted">No audit rows match.</p> : null}
      <nav class="pager" aria-label="Audit pages">
        <button type="button" disabled={pages.length === 1} onClick={() => setPages(pages.slice(0, -1))}>
          Newer
        </button>
        <button
          type="button"
          disabled={list.length < PAGE_SIZE || oldest === undefined}
          onClick={() => oldest !== undefined && setPages([...pages, oldest.ts - 1])}
        >
          Older
        </button>
      </nav>
    </Section>
  );
}
