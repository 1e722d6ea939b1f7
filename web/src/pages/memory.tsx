// Memory: stats, hybrid search, browse page by page, inspect one entry, delete; an operator can store a fact.
import { useState } from 'preact/hooks';
import {
  ErrorNotice,
  Field,
  JsonDetails,
  KeyValues,
  Loading,
  Notice,
  PageTitle,
  Pager,
  Section,
} from '../components/ui';
import { formatNumber, formatTime } from '../lib/format';
import { call, type ResultOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';
import { TableExport } from '../components/table-export';

/** An entry as memory.browse, memory.search and memory.inspect answer it. */
type MemoryEntry = ResultOf<'memory.browse'>['entries'][number];

/** Entries per browse page (memory.browse allows up to 500). */
const PAGE_SIZE = 25;

function EntryTable({
  entries,
  onInspect,
  onDelete,
}: {
  entries: MemoryEntry[];
  onInspect: (id: string) => void;
  onDelete: (entry: MemoryEntry) => void;
}) {
  if (entries.length === 0) return <p class="muted">No entries.</p>;
  return (
    <TableExport name="memory">
      <table class="stacked">
        <thead>
          <tr>
            <th scope="col">Content</th>
            <th scope="col">Type</th>
            <th scope="col">Agent</th>
            <th scope="col">Created</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td data-label="Content">
                {entry.content.length > 160 ? `${entry.content.slice(0, 160)}…` : entry.content}
                {entry.score === null ? null : <span class="muted"> (score {entry.score.toFixed(2)})</span>}
              </td>
              <td data-label="Type">{entry.memoryType}</td>
              <td data-label="Agent">{entry.agentId}</td>
              <td data-label="Created">{formatTime(Date.parse(entry.createdAt))}</td>
              <td data-label="Actions">
                <div class="actions">
                  <button type="button" onClick={() => onInspect(entry.id)} aria-label={`Inspect ${entry.id}`}>
                    Inspect
                  </button>
                  <button
                    type="button"
                    class="danger"
                    onClick={() => onDelete(entry)}
                    aria-label={`Delete ${entry.id}`}
                  >
                    Delete
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableExport>
  );
}

export default function MemoryPage() {
  const [version, setVersion] = useState(0);
  const [page, setPage] = useState(0);
  const [query, setQuery] = useState('');
  const [searched, setSearched] = useState('');
  const [inspected, setInspected] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [note, setNote] = useState<string | undefined>(undefined);
  const [fact, setFact] = useState('');
  const stats = useAsync(() => call('memory.stats'), [version]);
  const browse = useAsync(() => call('memory.browse', { offset: page * PAGE_SIZE, limit: PAGE_SIZE }), [page, version]);
  const results = useAsync(
    () => (searched === '' ? Promise.resolve(undefined) : call('memory.search', { query: searched, limit: 20 })),
    [searched, version],
  );
  const detail = useAsync(
    () => (inspected === undefined ? Promise.resolve(undefined) : call('memory.inspect', { id: inspected })),
    [inspected],
  );
  // Asked with an id, memory.inspect answers { entry } (without one it would answer { stats }).
  const shown = detail.data?.entry;

  async function remove(entry: MemoryEntry) {
    if (!confirm('Delete this memory entry?')) return;
    try {
      await call('memory.delete', { id: entry.id });
      setNote('Entry deleted.');
      if (inspected === entry.id) setInspected(undefined);
      setVersion(version + 1);
    } catch (failure) {
      setError(failure);
    }
  }
  async function store(event: Event) {
    event.preventDefault();
    try {
      await call('memory.store', { content: fact });
      setFact('');
      setNote('Stored.');
      setVersion(version + 1);
    } catch (failure) {
      setError(failure);
    }
  }
  const total = browse.data?.total ?? 0;
  return (
    <>
      <PageTitle>Memory</PageTitle>
      {note === undefined ? null : <Notice tone="ok">{note}</Notice>}
      <ErrorNotice error={error} />
      <Section title="Stats">
        <ErrorNotice error={stats.error} />
        {stats.data === undefined ? null : (
          <KeyValues
            rows={[
              ['Entries', formatNumber(stats.data.totalEntries)],
              ['Database size', `${formatNumber(Math.round(stats.data.dbSizeBytes / 1024))} KiB`],
              ['Embedder', stats.data.embeddingProvider],
              ['Embedding cache hits', `${Math.round(stats.data.cacheHitRate * 100)} %`],
              ...Object.entries(stats.data.byType).map(([type, count]): [string, string] => [
                `Type ${type}`,
                formatNumber(count),
              ]),
            ]}
          />
        )}
      </Section>
      <Section title="Search">
        <form class="row" onSubmit={(event) => (event.preventDefault(), setSearched(query.trim()))} role="search">
          <label for="memory-query">Query</label>
          <input
            id="memory-query"
            type="search"
            value={query}
            onInput={(event) => setQuery(event.currentTarget.value)}
          />
          <button type="submit">Search</button>
        </form>
        <Loading isLoading={results.isLoading && searched !== ''} />
        <ErrorNotice error={results.error} />
        {results.data === undefined ? null : (
          <EntryTable
            entries={results.data.results}
            onInspect={setInspected}
            onDelete={(entry) => void remove(entry)}
          />
        )}
      </Section>
      {inspected === undefined ? null : (
        <Section
          title="Entry"
          actions={
            <button type="button" onClick={() => setInspected(undefined)}>
              Close
            </button>
          }
        >
          <Loading isLoading={detail.isLoading} />
          <ErrorNotice error={detail.error} />
          {shown === undefined ? null : (
            <>
              <p>{shown.content}</p>
              <KeyValues
                rows={[
                  ['Type', shown.memoryType],
                  ['Trust', shown.trustLevel],
                  ['Status', shown.status],
                  ['Tenant', shown.tenantId],
                  ['Agent', shown.agentId],
                  ['Recalled', formatNumber(shown.recallCount)],
                  ['From session', shown.sourceSessionKey ?? '—'],
                ]}
              />
              <JsonDetails summary="All fields" value={shown} />
            </>
          )}
        </Section>
      )}
      <Section title={`Browse (${formatNumber(total)} entries)`}>
        <Loading isLoading={browse.isLoading} />
        <ErrorNotice error={browse.error} />
        <EntryTable
          entries={browse.data?.entries ?? []}
          onInspect={setInspected}
          onDelete={(entry) => void remove(entry)}
        />
        <Pager page={page} hasNext={(page + 1) * PAGE_SIZE < total} onPage={setPage} />
      </Section>
      <Section title="Store a fact">
        <form onSubmit={(event) => void store(event)}>
          <Field id="memory-fact" label="Content">
            {(props) => (
              <textarea {...props} rows={3} value={fact} onInput={(event) => setFact(event.currentTarget.value)} />
            )}
          </Field>
          <button type="submit" disabled={fact.trim() === ''}>
            Store
          </button>
        </form>
      </Section>
    </>
  );
}
