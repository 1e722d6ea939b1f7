// Sessions: one server page at a time (session.list with a cursor), filtered by agent and kind; a row opens its detail.
import { useState } from 'preact/hooks';
import { SessionDetail } from '../components/session-detail';
import { ErrorNotice, Loading, PageTitle, Pager, Section } from '../components/ui';
import { formatNumber, formatTime } from '../lib/format';
import { call } from '../lib/rpc';
import { BASE, navigate, onLinkClick, pathWith, route } from '../lib/router';
import { listAgents } from '../lib/transcript';
import { useAsync } from '../lib/use-async';

/** Rows per page; the server caps session.list at 500. */
const PAGE_SIZE = 50;
const KINDS = ['all', 'dm', 'group', 'sub-agent'] as const;

function SessionList() {
  const query = route.value.query;
  const agentId = query.get('agent') ?? '';
  // A kind the server does not know (a hand-edited address) shows every kind, as the filter's own options do.
  const kind = KINDS.find((value) => value === query.get('kind')) ?? 'all';
  // Cursors of the pages before the current one: Previous pops, Next pushes; filters start again at page 1.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors.at(-1);
  const agents = useAsync(listAgents, []);
  const page = useAsync(
    () =>
      call('session.list', {
        limit: PAGE_SIZE,
        kind,
        ...(agentId === '' ? {} : { agentId }),
        ...(cursor === undefined ? {} : { cursor }),
      }),
    [agentId, kind, cursor],
  );
  function setFilter(name: string, value: string) {
    setCursors([undefined]);
    navigate(pathWith('sessions', { agent: agentId, kind, [name]: value }), { replace: true });
  }
  return (
    <Section title="Sessions">
      <form class="row" onSubmit={(event) => event.preventDefault()} aria-label="Filters">
        <label for="filter-agent">Agent</label>
        <select id="filter-agent" value={agentId} onChange={(event) => setFilter('agent', event.currentTarget.value)}>
          <option value="">All agents</option>
          {(agents.data ?? []).map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.id}
            </option>
          ))}
        </select>
        <label for="filter-kind">Kind</label>
        <select id="filter-kind" value={kind} onChange={(event) => setFilter('kind', event.currentTarget.value)}>
          {KINDS.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </form>
      <Loading isLoading={page.isLoading} />
      <ErrorNotice error={page.error} />
      <div class="table-wrap">
        <table class="stacked">
          <caption class="sr-only">Sessions, most recently updated first</caption>
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Agent</th>
              <th scope="col">Messages</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {(page.data?.sessions ?? []).map((session) => (
              <tr key={session.sessionKey}>
                <td class="wrap" data-label="Session">
                  <a href={BASE + pathWith('sessions', { key: session.sessionKey })} onClick={onLinkClick}>
                    {session.sessionKey}
                  </a>
                </td>
                <td data-label="Agent">{session.agentId}</td>
                <td data-label="Messages">{formatNumber(session.messageCount)}</td>
                <td data-label="Updated">{formatTime(session.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {page.data?.sessions.length === 0 ? <p class="muted">No sessions match.</p> : null}
      <Pager
        page={cursors.length - 1}
        hasNext={page.data?.nextCursor !== null && page.data?.nextCursor !== undefined}
        onPage={(next) => {
          if (next < cursors.length - 1) setCursors(cursors.slice(0, -1));
          else if (page.data?.nextCursor != null) setCursors([...cursors, page.data.nextCursor]);
        }}
      />
    </Section>
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
