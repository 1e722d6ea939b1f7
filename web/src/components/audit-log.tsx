// The audit log, newest first: filters picked from the values the log holds (obs.audit.facets) and a date range, older
// rows appended by the server's cursor (rows sharing a millisecond are neither skipped nor repeated), CSV download.
import { useEffect, useState } from 'preact/hooks';
import { errorText, formatTime } from '../lib/format';
import { call, type ResultOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';
import { TableExport } from './table-export';
import { ErrorNotice, Field, Loading, Section } from './ui';

/** Rows per request (obs.audit.query clamps at 1000). */
const PAGE_SIZE = 50;

type AuditPage = ResultOf<'obs.audit.query'>;
type AuditRow = AuditPage['rows'][number];

interface Filters {
  kind: string;
  agentId: string;
  outcome: string;
  /** `YYYY-MM-DD` of the date inputs; '' when open. */
  from: string;
  to: string;
}

const NO_FILTERS: Filters = { kind: '', agentId: '', outcome: '', from: '', to: '' };

/** Local midnight starting `date` (`YYYY-MM-DD`), `days` later, in epoch ms. */
function midnight(date: string, days = 0): number {
  const day = new Date(`${date}T00:00:00`);
  day.setDate(day.getDate() + days);
  return day.getTime();
}

function queryOf(filters: Filters) {
  return {
    limit: PAGE_SIZE,
    ...(filters.kind === '' ? {} : { kind: filters.kind }),
    ...(filters.agentId === '' ? {} : { agentId: filters.agentId }),
    ...(filters.outcome === '' ? {} : { outcome: filters.outcome }),
    ...(filters.from === '' ? {} : { since: midnight(filters.from) }),
    // The whole "to" day is in range: until is inclusive.
    ...(filters.to === '' ? {} : { until: midnight(filters.to, 1) - 1 }),
  };
}

const isGood = (outcome: string) => outcome === 'ok' || outcome === 'success' || outcome === 'allowed';

export function AuditLog() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const facets = useAsync(() => call('obs.audit.facets'), []);
  const first = useAsync(() => call('obs.audit.query', queryOf(filters)), [filters]);
  /** Pages loaded by "Older" after the first, and the cursor of the next. */
  const [older, setOlder] = useState<{ rows: AuditRow[]; nextCursor: string | null } | undefined>(undefined);
  const [olderError, setOlderError] = useState<unknown>(undefined);
  const [isLoadingOlder, setLoadingOlder] = useState(false);
  useEffect(() => {
    setOlder(undefined);
    setOlderError(undefined);
  }, [first.data]);
  const rows = [...(first.data?.rows ?? []), ...(older?.rows ?? [])];
  const cursor = older === undefined ? first.data?.nextCursor : older.nextCursor;
  const rangeError =
    draft.from !== '' && draft.to !== '' && draft.from > draft.to ? 'The range ends before it starts.' : undefined;

  function loadOlder() {
    if (cursor === null || cursor === undefined) return;
    setLoadingOlder(true);
    call('obs.audit.query', { ...queryOf(filters), cursor }).then(
      (page) => {
        setOlder({ rows: [...(older?.rows ?? []), ...page.rows], nextCursor: page.nextCursor });
        setOlderError(undefined);
        setLoadingOlder(false);
      },
      (error: unknown) => {
        setOlderError(error);
        setLoadingOlder(false);
      },
    );
  }

  const choice = (name: 'kind' | 'agentId' | 'outcome', label: string, values: readonly string[] | undefined) => (
    <Field id={`audit-${name}`} label={label}>
      {(props) => (
        <select
          {...props}
          value={draft[name]}
          onChange={(event) => setDraft({ ...draft, [name]: event.currentTarget.value })}
        >
          <option value="">All</option>
          {(values ?? []).map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
          {draft[name] !== '' && !(values ?? []).includes(draft[name]) ? (
            <option value={draft[name]}>{draft[name]}</option>
          ) : null}
        </select>
      )}
    </Field>
  );

  return (
    <Section title="Audit log">
      <form
        class="row"
        aria-label="Audit filters"
        onSubmit={(event) => {
          event.preventDefault();
          if (rangeError === undefined) setFilters(draft);
        }}
      >
        {choice('kind', 'Kind', facets.data?.kinds)}
        {choice('agentId', 'Agent', facets.data?.agentIds)}
        {choice('outcome', 'Outcome', facets.data?.outcomes)}
        <Field id="audit-from" label="From">
          {(props) => (
            <input
              {...props}
              type="date"
              value={draft.from}
              onInput={(event) => setDraft({ ...draft, from: event.currentTarget.value })}
            />
          )}
        </Field>
        <Field id="audit-to" label="To" error={rangeError}>
          {(props) => (
            <input
              {...props}
              type="date"
              value={draft.to}
              onInput={(event) => setDraft({ ...draft, to: event.currentTarget.value })}
            />
          )}
        </Field>
        <button type="submit" disabled={rangeError !== undefined}>
          Filter
        </button>
        <button
          type="button"
          onClick={() => {
            setDraft(NO_FILTERS);
            setFilters(NO_FILTERS);
          }}
        >
          Clear
        </button>
      </form>
      <ErrorNotice error={facets.error} />
      <Loading isLoading={first.isLoading} />
      <ErrorNotice error={first.error} />
      <TableExport name="audit-log">
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
            {rows.map((row) => (
              <tr key={row.id} data-row-id={row.id}>
                <td>{formatTime(row.ts)}</td>
                <td>{row.kind}</td>
                <td class="wrap">{row.action}</td>
                <td>{row.actor}</td>
                <td>{row.agentId ?? '—'}</td>
                <td>
                  <span class={`badge ${isGood(row.outcome) ? 'ok' : 'warn'}`}>{row.outcome}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableExport>
      {first.data !== undefined && rows.length === 0 ? <p class="muted">No audit rows match.</p> : null}
      {olderError === undefined ? null : <p class="field-error">{errorText(olderError)}</p>}
      <nav class="pager" aria-label="Audit pages">
        <span class="muted" aria-live="polite">
          {rows.length} {rows.length === 1 ? 'row' : 'rows'}
          {cursor === null ? ' (all)' : ''}
        </span>
        <button type="button" disabled={cursor === null || cursor === undefined || isLoadingOlder} onClick={loadOlder}>
          Older
        </button>
      </nav>
    </Section>
  );
}
