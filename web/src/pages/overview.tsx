// Overview: health, version, uptime, config waiting for a restart, agents, providers with their breakers, today's token
// usage and the live event feed.
import { useEffect, useMemo } from 'preact/hooks';
import { Chart } from '../components/chart';
import { ErrorNotice, KeyValues, Loading, Notice, PageTitle, Section } from '../components/ui';
import { getJson, health } from '../lib/api';
import { formatDuration, formatNumber, formatTime } from '../lib/format';
import { lastDayHours } from '../lib/last-day';
import { liveEvents, liveState, subscribeEvents } from '../lib/live-events';
import { call, type ResultOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';

/** A provider's circuit breaker, as models.list_providers reports it. */
type Breaker = NonNullable<ResultOf<'models.list_providers'>['breakers']>[string];
/** A row of GET /api/agents (REST, not typed by the method map). */
interface AgentRow {
  id: string;
  name: string;
  provider: string | null;
  model: string | null;
  status: string;
}

function StatusCard() {
  const state = useAsync(async () => {
    const [healthy, status, discover] = await Promise.all([
      health(),
      call('gateway.status').catch(() => undefined),
      call('rpc.discover').catch(() => undefined),
    ]);
    return { healthy, status, version: discover?.info.version };
  }, []);
  const data = state.data;
  return (
    <Section title="Gateway">
      <Loading isLoading={state.isLoading && data === undefined} />
      <ErrorNotice error={state.error} />
      {data === undefined ? null : (
        <KeyValues
          rows={[
            [
              'Health',
              <span class={`badge ${data.healthy.status === 'ok' ? 'ok' : 'bad'}`}>{data.healthy.status}</span>,
            ],
            ['Version', data.version ?? '—'],
            ['Uptime', data.status === undefined ? '—' : formatDuration(data.status.uptime * 1000)],
            ['Node', data.status?.nodeVersion ?? '—'],
          ]}
        />
      )}
      {data?.status === undefined || data.status.restartPending.length === 0 ? null : (
        <Notice>
          Config changed that applies only at the next restart (gateway.restart):{' '}
          {data.status.restartPending.join(', ')}.
        </Notice>
      )}
    </Section>
  );
}

function breakerBadge(breaker: Breaker | undefined) {
  if (breaker === undefined) return <span class="badge">unknown</span>;
  const tone = breaker.state === 'closed' ? 'ok' : breaker.state === 'open' ? 'bad' : 'warn';
  return <span class={`badge ${tone}`}>{breaker.state}</span>;
}

function AgentsAndProviders() {
  const agents = useAsync(() => getJson<{ agents: AgentRow[] }>('/api/agents'), []);
  const providers = useAsync(() => call('models.list_providers'), []);
  return (
    <div class="grid">
      <Section title="Agents">
        <ErrorNotice error={agents.error} />
        <ul>
          {(agents.data?.agents ?? []).map((agent) => (
            <li key={agent.id}>
              <strong>{agent.name}</strong> <span class="muted">({agent.id})</span> — {agent.model ?? 'no model'}{' '}
              <span class={`badge ${agent.status === 'active' ? 'ok' : 'warn'}`}>{agent.status}</span>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Providers">
        <ErrorNotice error={providers.error} />
        {providers.data?.providers.length === 0 ? <p class="muted">No provider configured.</p> : null}
        <ul>
          {(providers.data?.providers ?? []).map((name) => (
            <li key={name}>
              {name}: breaker {breakerBadge(providers.data?.breakers?.[name])}
            </li>
          ))}
        </ul>
      </Section>
    </div>
  );
}

function UsageToday() {
  const usage = useAsync(() => call('obs.billing.usage24h'), []);
  const lastDay = useMemo(() => lastDayHours(usage.data ?? []), [usage.data]);
  const labels = useMemo(() => lastDay.map((point) => point.label), [lastDay]);
  const series = useMemo(() => [{ label: 'Tokens', values: lastDay.map((point) => point.tokens) }], [lastDay]);
  const total = (usage.data ?? []).reduce((sum, entry) => sum + entry.tokens, 0);
  return (
    <Section title="Token usage, last 24 hours">
      <ErrorNotice error={usage.error} />
      <p>
        Total: <strong>{formatNumber(total)}</strong> tokens
      </p>
      {usage.data === undefined ? null : <Chart title="Tokens per hour" labels={labels} series={series} />}
    </Section>
  );
}

function EventFeed() {
  useEffect(() => subscribeEvents(), []);
  const events = liveEvents.value.slice(0, 50);
  return (
    <Section
      title="Live events"
      actions={
        <span class="muted" role="status">
          {liveState.value}
        </span>
      }
    >
      {events.length === 0 ? <p class="muted">No events yet.</p> : null}
      <ul class="feed" aria-live="polite" aria-relevant="additions">
        {events.map((event, index) => (
          <li key={event.id ?? index}>
            <code>{event.name}</code>{' '}
            <span class="muted">{formatTime(typeof event.data.ts === 'number' ? event.data.ts : undefined)}</span>
          </li>
        ))}
      </ul>
    </Section>
  );
}

export default function OverviewPage() {
  return (
    <>
      <PageTitle>Overview</PageTitle>
      <div class="grid">
        <StatusCard />
        <UsageToday />
      </div>
      <AgentsAndProviders />
      <EventFeed />
    </>
  );
}
