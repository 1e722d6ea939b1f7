// Cost: spend in dollars per agent, provider/model or owner token over the last 24 hours, 7 or 30 days (obs.billing.spend),
// its series as a chart ending at now, the table as CSV, and the configured budgets with their usage.
import { useMemo, useState } from 'preact/hooks';
import { Chart } from '../components/chart';
import { TableExport } from '../components/table-export';
import { ErrorNotice, KeyValues, Loading, PageTitle, Section } from '../components/ui';
import { formatNumber, formatUsd } from '../lib/format';
import { BASE, onLinkClick } from '../lib/router';
import { call, type ParamsOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';

type SpendWindow = ParamsOf<'obs.billing.spend'>['window'];
type SpendKey = ParamsOf<'obs.billing.spend'>['by'];

const WINDOWS: [SpendWindow, string][] = [
  ['24h', '24 hours'],
  ['7d', '7 days'],
  ['30d', '30 days'],
];
const KEYS: [SpendKey, string, string][] = [
  ['agent', 'By agent', 'Agent'],
  ['model', 'By model', 'Provider/model'],
  ['token', 'By token', 'Token'],
];
/** The key of usage whose session has no owner token (an operator's, or the session is gone). */
const NO_OWNER = 'no token (operator)';

const pad = (value: number) => String(value).padStart(2, '0');

/** An hourly bucket by its local start time, a daily one by its UTC date (the buckets are UTC days). */
function bucketLabel(startMs: number, bucketMs: number): string {
  const date = new Date(startMs);
  if (bucketMs < 86_400_000) return `${pad(date.getHours())}:${pad(date.getMinutes())}`;
  return date.toISOString().slice(0, 10);
}

/** One switch of buttons, the chosen one pressed. */
function Switch<T extends string>(props: {
  label: string;
  options: [T, string][];
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <div class="row" role="group" aria-label={props.label}>
      {props.options.map(([value, text]) => (
        <button
          type="button"
          key={value}
          aria-pressed={props.value === value}
          class={props.value === value ? 'primary' : undefined}
          onClick={() => props.onChange(value)}
        >
          {text}
        </button>
      ))}
    </div>
  );
}

function Budgets() {
  const budgets = useAsync(() => call('budgets.list'), []);
  const list = budgets.data?.budgets ?? [];
  if (list.length === 0) return null;
  return (
    <Section title="Budgets">
      <div class="table-wrap">
        <table aria-label="Budgets and their usage">
          <thead>
            <tr>
              <th scope="col">Budget</th>
              <th scope="col">Scope</th>
              <th scope="col">Cost used</th>
              <th scope="col">Tokens used</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {list.map((budget) => (
              <tr key={budget.id}>
                <td>{budget.id}</td>
                <td>
                  <code>{budget.scope}</code>
                </td>
                <td>
                  {formatUsd(budget.used.costMicroUsd / 1e6)}
                  {budget.maxCostUsd === undefined ? '' : ` of ${formatUsd(budget.maxCostUsd)}`}
                </td>
                <td>
                  {formatNumber(budget.used.tokens)}
                  {budget.maxTokens === undefined ? '' : ` of ${formatNumber(budget.maxTokens)}`}
                </td>
                <td>{budget.state}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p>
        <a href={`${BASE}budgets`} onClick={onLinkClick}>
          Manage budgets
        </a>
      </p>
    </Section>
  );
}

export default function CostPage() {
  const [span, setSpan] = useState<SpendWindow>('24h');
  const [by, setBy] = useState<SpendKey>('agent');
  const spend = useAsync(() => call('obs.billing.spend', { window: span, by }), [span, by]);
  const report = spend.data;
  const chart = useMemo(
    () => ({
      labels: (report?.series ?? []).map((point) => bucketLabel(point.startMs, report?.bucketMs ?? 0)),
      series: [{ label: 'Cost (USD)', values: (report?.series ?? []).map((point) => point.costUsd) }],
    }),
    [report],
  );
  const keyHeading = KEYS.find(([key]) => key === (report?.by ?? by))?.[2] ?? 'Key';
  const windowText = WINDOWS.find(([value]) => value === (report?.window ?? span))?.[1] ?? span;
  return (
    <>
      <PageTitle>Cost</PageTitle>
      <Section title="Spend">
        <Switch label="Window" options={WINDOWS} value={span} onChange={setSpan} />
        <Switch label="Group by" options={KEYS.map(([key, text]) => [key, text])} value={by} onChange={setBy} />
        <Loading isLoading={spend.isLoading} />
        <ErrorNotice error={spend.error} />
        {report === undefined ? null : (
          <>
            <KeyValues
              rows={[
                ['Cost', formatUsd(report.totals.costUsd)],
                ['Input tokens', formatNumber(report.totals.inputTokens)],
                ['Output tokens', formatNumber(report.totals.outputTokens)],
                ['Model calls', formatNumber(report.totals.calls)],
              ]}
            />
            <Chart title={`Cost over the last ${windowText}`} kind="bar" {...chart} />
          </>
        )}
      </Section>
      <Section title={`Cost by ${keyHeading.toLowerCase()}`}>
        {report === undefined ? null : report.rows.length === 0 ? (
          <p class="muted">No model calls in the last {windowText}.</p>
        ) : (
          <TableExport name={`cost-by-${report.by}-${report.window}`}>
            <table aria-label={`Cost by ${keyHeading.toLowerCase()}`}>
              <thead>
                <tr>
                  <th scope="col">{keyHeading}</th>
                  <th scope="col">Cost (USD)</th>
                  <th scope="col">Input tokens</th>
                  <th scope="col">Output tokens</th>
                  <th scope="col">Calls</th>
                </tr>
              </thead>
              <tbody>
                {report.rows.map((row) => (
                  <tr key={row.key ?? ''}>
                    <td data-csv={row.key ?? ''}>{row.key ?? NO_OWNER}</td>
                    <td data-csv={String(row.costUsd)}>{formatUsd(row.costUsd)}</td>
                    <td data-csv={String(row.inputTokens)}>{formatNumber(row.inputTokens)}</td>
                    <td data-csv={String(row.outputTokens)}>{formatNumber(row.outputTokens)}</td>
                    <td data-csv={String(row.calls)}>{formatNumber(row.calls)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableExport>
        )}
      </Section>
      <Budgets />
    </>
  );
}
