// Full-text search over session transcripts (session.search): each hit names its session and shows the matching snippet.
import { useState } from 'preact/hooks';
import { ErrorNotice } from './ui';
import { formatTime } from '../lib/format';
import { call, type ResultOf } from '../lib/rpc';
import { BASE, onLinkClick, pathWith } from '../lib/router';

type Hit = ResultOf<'session.search'>[number];

/** The snippet with its [matched] terms marked. */
function Snippet({ text }: { text: string }) {
  const parts = text.split(/(\[[^\]]*\])/);
  return (
    <>
      {parts.map((part, index) =>
        part.startsWith('[') && part.endsWith(']') ? <mark key={index}>{part.slice(1, -1)}</mark> : part,
      )}
    </>
  );
}

export function SessionSearch() {
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<Hit[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  async function search(event: Event) {
    event.preventDefault();
    const text = query.trim();
    if (text === '') return setHits(undefined);
    try {
      setHits(await call('session.search', { query: text, limit: 20 }));
      setError(undefined);
    } catch (failure) {
      setError(failure);
    }
  }
  return (
    <div class="session-search">
      <form class="row" role="search" aria-label="Transcript search" onSubmit={(event) => void search(event)}>
        <label for="session-search-query">Search transcripts</label>
        <input
          id="session-search-query"
          type="search"
          value={query}
          maxLength={1000}
          onInput={(event) => setQuery(event.currentTarget.value)}
        />
        <button type="submit">Search</button>
      </form>
      <ErrorNotice error={error} />
      {hits === undefined ? null : hits.length === 0 ? (
        <p class="muted">No transcript matches.</p>
      ) : (
        <ul class="search-hits" aria-label="Search results">
          {hits.map((hit) => (
            <li key={hit.sessionKey}>
              <a href={BASE + pathWith('sessions', { key: hit.sessionKey })} onClick={onLinkClick} class="wrap">
                {hit.sessionKey}
              </a>{' '}
              <span class="muted">
                {hit.agentId} · {hit.channelType} · {formatTime(hit.timestamp)}
              </span>
              <p class="wrap">
                <Snippet text={hit.snippet} />
              </p>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
