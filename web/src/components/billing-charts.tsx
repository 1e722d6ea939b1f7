// Billing charts: cost and tokens by agent and by provider, and tokens per hour over the last 24 hours (now at the right).
import { useMemo } from 'preact/hooks';
import { formatNumber, formatUsd } from '../lib/format';
import { lastDayHours } from '../lib/last-day';
import { call, type ResultOf } from '../lib/rpc';
import { listAgents } from '../lib/transcript';
import { useAsync } from '../lib/use-async';
import { Chart } from './chart';
import { ErrorNotice, KeyValues, Loading, Section } from './ui';

async function byAgent(): Promise<{ agentId: string; totals: ResultOf<'obs.billing.byAgent'> }[]> {
  const agents = await listAgents();
  return Promise.all(
    agents.map(async (agent) => ({
      agentId: agent.id,
      totals: await call('obs.billing.byAgent', { agentId: agent.id }),
    })),
  );
}

export function BillingCharts() {
  const total = useAsync(() => call('obs.billing.total'), []);
  const agents = useAsync(byAgent, []);
  const providers = useAsync(() => call('obs.billing.byProvider'), []);
  const hours = useAsync(() => call('obs.billing.usage24h'), []);
  const agentChart = useMemo(
    () => ({
      labels: (agents.data ?? []).map((row) => row.agentId),
      series: [{ label: 'Tokens', values: (agents.data ?? []).map((row) => row.totals.totalTokens) }],
    }),
    [agents.data],
  );
  const providerChart = useMemo(
    () => ({
      labels: (providers.data?.providers ?? []).map((row) => row.provider),
      series: [
        { label: 'Input tokens', values: (providers.data?.providers ?? []).map((row) => row.inputTokens) },
        { label: 'Output tokens', values: (providers.data?.providers ?? []).map((row) => row.outputTokens) },
      ],
    }),
    [providers.data],
  );
  const lastDay = useMemo(() => lastDayHours(hours.data ?? []), [hours.data]);
  const hourChart = useMemo(
    () => ({
      labels: lastDay.map((point) => point.label),
      series: [{ label: 'Tokens', values: lastDay.map((point) => point.tokens) }],
    }),
    [lastDay],
  );
  return (
    <>
      <Section title="Billing">
        <ErrorNotice error={total.error} />
        {total.data === undefined ? null : (
          <KeyValues
            rows={[
              ['Cost', formatUsd(total.data.totalCost)],
              ['Tokens', formatNumber(total.data.totalTokens)],
              ['Model calls', formatNumber(total.data.callCount)],
              ['Saved by caching', formatUsd(total.data.totalCacheSaved)],
            ]}
          />
        )}
      </Section>
      <div class="grid">
        <Section title="Tokens by agent">
          <Loading isLoading={agents.isLoading} />
          <ErrorNotice error={agents.error} />
          {agents.data === undefined ? null : <Chart title="Tokens by agent" {...agentChart} />}
          <ul>
            {(agents.data ?? []).map((row) => (
              <li key={row.agentId}>
                {row.agentId}: {formatUsd(row.totals.totalCost)}, {formatNumber(row.totals.callCount)} calls
              </li>
            ))}
          </ul>
        </Section>
        <Section title="Tokens by provider">
          <Loading isLoading={providers.isLoading} />
          <ErrorNotice error={providers.error} />
          {providers.data === undefined ? null : providers.data.providers.length === 0 ? (
            <p class="muted">No usage recorded.</p>
          ) : (
            <Chart title="Tokens by provider" {...providerChart} />
          )}
        </Section>
      </div>
      <Section title="Tokens per hour, last 24 hours">
        <ErrorNotice error={hours.error} />
        {hours.data === undefined ? null : <Chart title="Tokens per hour" kind="line" {...hourChart} />}
      </Section>
    </>
  );
}
