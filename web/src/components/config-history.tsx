// Config history: commits newest first, each with its diff on demand and a rollback to it.
import { useState } from 'preact/hooks';
import { call, type ResultOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';
import { ErrorNotice, Loading, Notice, Section } from './ui';

type Commit = ResultOf<'config.history'>['entries'][number];

/** Commits fetched per "Show more" (config.history allows at most 1000). */
const HISTORY_STEP = 20;

function DiffView({ sha }: { sha: string }) {
  const diff = useAsync(() => call('config.diff', { sha }), [sha]);
  return (
    <>
      <Loading isLoading={diff.isLoading} />
      <ErrorNotice error={diff.error} />
      {diff.data === undefined ? null : (
        <pre aria-label={`Diff of ${sha.slice(0, 8)}`}>
          {diff.data.diff.split('\n').map((line, index) => (
            <span
              key={index}
              class={
                line.startsWith('+') && !line.startsWith('+++')
                  ? 'diff-add'
                  : line.startsWith('-') && !line.startsWith('---')
                    ? 'diff-del'
                    : undefined
              }
            >
              {line}
              {'\n'}
            </span>
          ))}
        </pre>
      )}
    </>
  );
}

export function ConfigHistory({ version, onRolledBack }: { version: number; onRolledBack: () => void }) {
  const [limit, setLimit] = useState(HISTORY_STEP);
  const history = useAsync(() => call('config.history', { limit }), [limit, version]);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const [note, setNote] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  async function rollback(commit: Commit) {
    setError(undefined);
    if (!confirm(`Restore the config as it was at ${commit.sha.slice(0, 8)} (“${commit.message}”)?`)) return;
    try {
      await call('config.rollback', { sha: commit.sha });
      setNote(`Rolled back to ${commit.sha.slice(0, 8)}.`);
      onRolledBack();
    } catch (failure) {
      setError(failure);
    }
  }
  const entries = history.data?.entries ?? [];
  return (
    <Section title="History">
      {note === undefined ? null : <Notice tone="ok">{note}</Notice>}
      <ErrorNotice error={error} />
      <Loading isLoading={history.isLoading && history.data === undefined} />
      <ErrorNotice error={history.error} />
      <ol class="stack" style={{ paddingLeft: '1.25rem' }}>
        {entries.map((commit, index) => (
          <li key={commit.sha}>
            <div class="row">
              <code>{commit.sha.slice(0, 8)}</code>
              <span>{commit.message}</span>
              <span class="muted">{new Date(commit.date).toLocaleString()}</span>
            </div>
            <div class="row">
              <button
                type="button"
                aria-expanded={open === commit.sha}
                onClick={() => setOpen(open === commit.sha ? undefined : commit.sha)}
              >
                {open === commit.sha ? 'Hide diff' : 'Show diff'}
              </button>
              {index === 0 ? (
                <span class="muted">current</span>
              ) : (
                <button
                  type="button"
                  onClick={() => void rollback(commit)}
                  aria-label={`Roll back to ${commit.sha.slice(0, 8)}`}
                >
                  Roll back to this
                </button>
              )}
            </div>
            {open === commit.sha ? <DiffView sha={commit.sha} /> : null}
          </li>
        ))}
      </ol>
      {entries.length === limit ? (
        <button type="button" onClick={() => setLimit(limit + HISTORY_STEP)}>
          Show more
        </button>
      ) : null}
    </Section>
  );
}
