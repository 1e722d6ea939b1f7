// Budgets: each configured budget with its scope, window, action and usage bars (used and reserved against each
// limit); add, replace (edit) and delete one. Changes go through budgets.set and budgets.delete (one config commit).
import { useState } from 'preact/hooks';
import { BudgetForm, EMPTY_BUDGET, formValuesOf, type BudgetFormValues } from '../components/budget-form';
import { ErrorNotice, KeyValues, Loading, Notice, PageTitle, Section } from '../components/ui';
import { refreshBudgetAlerts, type BudgetEntry } from '../lib/budget-alerts';
import { formatDuration, formatNumber, formatTime, formatUsd } from '../lib/format';
import { call } from '../lib/rpc';
import { useAsync } from '../lib/use-async';

const STATE_BADGE = { ok: 'ok', warning: 'warn', exhausted: 'bad' } as const;

function windowText(window: BudgetEntry['window']): string {
  if (window === 'day') return 'day (UTC)';
  if (window === 'month') return 'month (UTC)';
  return `rolling ${formatDuration(window.rollingMs)}`;
}

const percentOf = (part: number, limit: number) => (limit > 0 ? Math.min(100, (part / limit) * 100) : 0);

/** One limit's bar: used, then reserved, against the limit, with the same in words for screen readers. */
function UsageBar(props: {
  label: string;
  used: number;
  reserved: number;
  limit: number;
  format: (value: number) => string;
}) {
  const { label, used, reserved, limit, format } = props;
  const usedPercent = percentOf(used, limit);
  const reservedPercent = Math.min(100 - usedPercent, percentOf(reserved, limit));
  const text = `${format(used)} used + ${format(reserved)} reserved of ${format(limit)} (${Math.floor(percentOf(used + reserved, limit))}%)`;
  return (
    <div class="usage">
      <div class="usage-head">
        <span>{label}</span>
        <span class="muted">{text}</span>
      </div>
      <div
        class="usage-bar"
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(percentOf(used + reserved, limit))}
        aria-valuetext={text}
      >
        <span class="usage-used" style={{ width: `${usedPercent}%` }} />
        <span class="usage-reserved" style={{ width: `${reservedPercent}%` }} />
      </div>
    </div>
  );
}

function BudgetCard(props: { budget: BudgetEntry; onEdit: () => void; onDelete: () => void }) {
  const { budget, onEdit, onDelete } = props;
  return (
    <article class="card budget" aria-label={`Budget ${budget.id}`}>
      <div class="card-head">
        <h3>{budget.id}</h3>
        <span class={`badge ${STATE_BADGE[budget.state]}`}>{budget.state}</span>
      </div>
      <KeyValues
        rows={[
          ['Scope', <code key="scope">{budget.scope}</code>],
          ['Window', windowText(budget.window)],
          ['Period', `${formatTime(budget.windowStart)} – ${formatTime(budget.windowEnd)}`],
          ['At the limit', budget.action === 'block' ? 'block calls' : 'warn only'],
          ['Warns at', `${Math.round(budget.warnAtFraction * 100)}%`],
        ]}
      />
      {budget.maxCostUsd === undefined ? null : (
        <UsageBar
          label={`Cost of ${budget.id}`}
          used={budget.used.costMicroUsd / 1e6}
          reserved={budget.reserved.costMicroUsd / 1e6}
          limit={budget.maxCostUsd}
          format={formatUsd}
        />
      )}
      {budget.maxTokens === undefined ? null : (
        <UsageBar
          label={`Tokens of ${budget.id}`}
          used={budget.used.tokens}
          reserved={budget.reserved.tokens}
          limit={budget.maxTokens}
          format={formatNumber}
        />
      )}
      <div class="actions">
        <button type="button" onClick={onEdit} aria-label={`Edit ${budget.id}`}>
          Edit
        </button>
        <button type="button" class="danger" onClick={onDelete} aria-label={`Delete ${budget.id}`}>
          Delete
        </button>
      </div>
    </article>
  );
}

export default function BudgetsPage() {
  const budgets = useAsync(() => call('budgets.list'), []);
  const [values, setValues] = useState<BudgetFormValues>(EMPTY_BUDGET);
  const [note, setNote] = useState<string | undefined>(undefined);
  const [actionError, setActionError] = useState<unknown>(undefined);

  const changed = (text: string) => {
    setNote(text);
    budgets.reload();
    void refreshBudgetAlerts();
  };
  async function remove(id: string) {
    setActionError(undefined);
    setNote(undefined);
    if (!confirm(`Delete budget ${id}? Its limits stop applying at once.`)) return;
    try {
      await call('budgets.delete', { id });
      changed(`Deleted budget ${id}.`);
    } catch (error) {
      setActionError(error);
    }
  }

  const list = budgets.data?.budgets ?? [];
  return (
    <>
      <PageTitle>Budgets</PageTitle>
      <Section title="Set a budget">
        <BudgetForm
          values={values}
          onChange={setValues}
          onSaved={(budget) => {
            setValues(EMPTY_BUDGET);
            changed(`Saved budget ${budget.id}.`);
          }}
        />
      </Section>
      <Section
        title="Budgets"
        actions={
          <button type="button" onClick={() => budgets.reload()}>
            Refresh
          </button>
        }
      >
        {note === undefined ? null : <Notice tone="ok">{note}</Notice>}
        <ErrorNotice error={actionError} />
        <Loading isLoading={budgets.isLoading} />
        <ErrorNotice error={budgets.error} />
        {!budgets.isLoading && budgets.error === undefined && list.length === 0 ? (
          <p class="muted">No budgets: model calls are limited only per turn (agents' budget.maxTokensPerTurn).</p>
        ) : null}
        {list.map((budget) => (
          <BudgetCard
            key={budget.id}
            budget={budget}
            onEdit={() => {
              setValues(formValuesOf(budget));
              document.getElementById('budget-id')?.focus();
            }}
            onDelete={() => void remove(budget.id)}
          />
        ))}
      </Section>
    </>
  );
}
