// Sessions: transcript search, then one server page at a time (session.list with a cursor) filtered by agent, kind,
// channel, outcome and date, new sessions added live; /v1 sessions apart, under their channel; a row opens its detail.
import { useEffect, useState } from 'preact/hooks';
import { SessionDetail } from '../components/session-detail';
import { listParams, readFilters, SessionFilters, type SessionFilterValues } from '../components/session-filters';
import { SessionSearch } from '../components/session-search';
import { SessionTable } from '../components/session-table';
import { ErrorNotice, Loading, PageTitle, Section } from '../components/ui';
import { formatNumber } from '../lib/format';
import { subscribeEvents } from '../lib/live-events';
import { call } from '../lib/rpc';
import { navigate, pathWith, route } from '../lib/router';
import { useAsync } from '../lib/use-async';

/** Rows per page; the server caps session.list at 500. */
const PAGE_SIZE = 50;

/** "1–50 of 1,234" for the page starting at row `start` (0-based) with `shown` rows. */
function rangeText(start: number, shown: number, total: number): string {
  if (shown === 0) return `0 of ${formatNumber(total)}`;
  return `${formatNumber(start + 1)}–${formatNumber(start + shown)} of ${formatNumber(total)}`;
}

/** The sessions of one /v1 channel, listed apart on request. */
function ApiChannelSessions({
  channel,
  count,
  filters,
}: {
  channel: string;
  count: number;
  filters: SessionFilterValues;
}) {
  const page = useAsync(
    () => call('session.list', { ...listParams(filters), channelId: channel, limit: PAGE_SIZE }),
    [channel, count, JSON.stringify(filters)],
  );
  return (
    <Section title={`/v1 channel ${channel}`}>
      <p class="muted">{rangeText(0, page.data?.sessions.length ?? 0, page.data?.total ?? count)}</p>
      <Loading isLoading={page.isLoading} />
      <ErrorNotice error={page.error} />
      <SessionTable
        rows={page.data?.sessions ?? []}
        caption={`Sessions of the /v1 channel ${channel}`}
        name={`sessions-${channel}`}
      />
    </Section>
  );
}

function SessionList() {
  const query = route.value.query;
  const filters = readFilters(query);
  const showApi = query.get('api') === '1';
  // Cursors of the pages before the current one: Previous pops, Next pushes; filters start again at page 1.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors.at(-1);
  const page = useAsync(
    () =>
      call('session.list', {
        ...listParams(filters),
        limit: PAGE_SIZE,
        ...(cursor === undefined ? {} : { cursor }),
      }),
    [JSON.stringify(filters), cursor],
  );
  // A session created while the page is open: the first page is read again, so it shows at the top in its place.
  const { reload } = page;
  const isFirstPage = cursor === undefined;
  useEffect(
    () =>
      subscribeEvents((event) => {
        if (event.name === 'session:created' && isFirstPage) reload();
      }),
    [isFirstPage, reload],
  );
  function setFilter(name: string, value: string) {
    setCursors([undefined]);
    navigate(pathWith('sessions', { ...filters, api: showApi ? '1' : '', [name]: value }), { replace: true });
  }
  const data = page.data;
  const hidden = Object.entries(data?.hiddenApiSessions ?? {});
  const hiddenTotal = hidden.reduce((sum, [, count]) => sum + count, 0);
  const start = (cursors.length - 1) * PAGE_SIZE;
  return (
    <>
      <Section title="Search">
        <SessionSearch />
      </Section>
      <Section title="Sessions">
        <SessionFilters key={filters.channel} filters={filters} onChange={setFilter} />
        <Loading isLoading={page.isLoading} />
        <ErrorNotice error={page.error} />
        {hiddenTotal > 0 || showApi ? (
          <p class="row api-sessions">
            <span>
              {showApi ? 'Shown below' : 'Hidden'}:{' '}
              {hidden.map(([channel, count]) => `${formatNumber(count)} /v1 sessions on ${channel}`).join(', ') ||
                'no /v1 sessions'}
            </span>
            <button type="button" onClick={() => setFilter('api', showApi ? '' : '1')}>
              {showApi ? 'Hide /v1 sessions' : 'Show /v1 sessions'}
            </button>
          </p>
        ) : null}
        <SessionTable rows={data?.sessions ?? []} caption="Sessions, most recently updated first" name="sessions" />
        {data?.sessions.length === 0 ? <p class="muted">No sessions match.</p> : null}
        <nav class="pager" aria-label="Session pages">
          <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous
          </button>
          <span aria-live="polite">{data === undefined ? '' : rangeText(start, data.sessions.length, data.total)}</span>
          <button
            type="button"
            disabled={data?.nextCursor == null}
            onClick={() => data?.nextCursor != null && setCursors([...cursors, data.nextCursor])}
          >
            Next
          </button>
        </nav>
      </Section>
      {showApi
        ? hidden.map(([channel, count]) => (
            <ApiChannelSessions key={channel} channel={channel} count={count} filters={filters} />
          ))
        : null}
    </>
  );
}

export default function SessionsPage() {
  const key = route.value.query.get('key');
  return (
    <>
      <PageTitle>{key === null ? 'Sessions' : 'Session'}</PageTitle>
      {key === null ? <SessionList /> : <SessionDetail key={key} sessionKey={key} />}
    </>
  );
}
