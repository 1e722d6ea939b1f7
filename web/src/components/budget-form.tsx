// Add or replace a budget: id, scope, window (day, month or rolling minutes), limits, action and warning point;
// the server's refusal shown at the field it names.
import { fieldErrorsOf } from '../lib/field-errors';
import { call, type ParamsOf, type ResultOf } from '../lib/rpc';
import { Field, Notice } from './ui';
import { fieldSetter } from '../lib/form-values';
import { useSubmission } from '../lib/use-submission';

type Budget = ResultOf<'budgets.set'>;
type Params = ParamsOf<'budgets.set'>;

const FIELDS = ['id', 'scope', 'window', 'maxCostUsd', 'maxTokens', 'action', 'warnAtFraction'] as const;
const MINUTE_MS = 60_000;

export interface BudgetFormValues {
  id: string;
  scope: string;
  window: 'day' | 'month' | 'rolling';
  rollingMinutes: string;
  maxCostUsd: string;
  maxTokens: string;
  action: 'block' | 'warn';
  warnAtPercent: string;
}

export const EMPTY_BUDGET: BudgetFormValues = {
  id: '',
  scope: 'global',
  window: 'day',
  rollingMinutes: '60',
  maxCostUsd: '',
  maxTokens: '',
  action: 'block',
  warnAtPercent: '80',
};

/** A listed budget as the form's values, for editing it. */
export function formValuesOf(budget: Budget): BudgetFormValues {
  const { window } = budget;
  return {
    id: budget.id,
    scope: budget.scope,
    window: typeof window === 'string' ? window : 'rolling',
    rollingMinutes: typeof window === 'string' ? '60' : String(window.rollingMs / MINUTE_MS),
    maxCostUsd: budget.maxCostUsd === undefined ? '' : String(budget.maxCostUsd),
    maxTokens: budget.maxTokens === undefined ? '' : String(budget.maxTokens),
    action: budget.action,
    warnAtPercent: String(Math.round(budget.warnAtFraction * 1000) / 10),
  };
}

/** A typed-in number, or absent when the field is empty. */
const numberOf = (text: string): number | undefined => (text.trim() === '' ? undefined : Number(text));

function paramsOf(values: BudgetFormValues): Params {
  const maxCostUsd = numberOf(values.maxCostUsd);
  const maxTokens = numberOf(values.maxTokens);
  const warnAtPercent = numberOf(values.warnAtPercent);
  return {
    id: values.id.trim(),
    scope: values.scope.trim(),
    window: values.window === 'rolling' ? { rollingMs: Number(values.rollingMinutes) * MINUTE_MS } : values.window,
    action: values.action,
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(warnAtPercent === undefined ? {} : { warnAtFraction: warnAtPercent / 100 }),
  };
}

interface BudgetFormProps {
  values: BudgetFormValues;
  onChange: (values: BudgetFormValues) => void;
  onSaved: (budget: Budget) => void;
}

export function BudgetForm({ values, onChange, onSaved }: BudgetFormProps) {
  const { error, isBusy, submitWith } = useSubmission();
  const errors = fieldErrorsOf(error, FIELDS);
  const set = fieldSetter(values, onChange);

  async function submit(event: Event) {
    event.preventDefault();
    await submitWith(async () => onSaved(await call('budgets.set', paramsOf(values))));
  }

  return (
    <form onSubmit={(event) => void submit(event)} noValidate>
      {errors.general === undefined ? null : <Notice tone="error">{errors.general}</Notice>}
      <div class="form grid">
        <Field id="budget-id" label="Budget id" error={errors.fields.id} hint="Saving an existing id replaces it.">
          {(props) => <input {...props} value={values.id} onInput={set('id')} autoComplete="off" />}
        </Field>
        <Field
          id="budget-scope"
          label="Scope"
          error={errors.fields.scope}
          hint="agent:<id>, token:<id>, tenant:<id> or global."
        >
          {(props) => <input {...props} value={values.scope} onInput={set('scope')} autoComplete="off" />}
        </Field>
        <Field id="budget-window" label="Window" error={errors.fields.window}>
          {(props) => (
            <select {...props} value={values.window} onChange={set('window')}>
              <option value="day">Day (UTC)</option>
              <option value="month">Month (UTC)</option>
              <option value="rolling">Rolling</option>
            </select>
          )}
        </Field>
        {values.window === 'rolling' ? (
          <Field id="budget-rolling" label="Rolling window (minutes)" hint="At least 1 minute.">
            {(props) => (
              <input
                {...props}
                type="number"
                min="1"
                inputMode="numeric"
                value={values.rollingMinutes}
                onInput={set('rollingMinutes')}
              />
            )}
          </Field>
        ) : null}
        <Field id="budget-cost" label="Max cost (USD)" error={errors.fields.maxCostUsd}>
          {(props) => (
            <input
              {...props}
              type="number"
              min="0"
              step="any"
              inputMode="decimal"
              value={values.maxCostUsd}
              onInput={set('maxCostUsd')}
            />
          )}
        </Field>
        <Field id="budget-tokens" label="Max tokens" error={errors.fields.maxTokens}>
          {(props) => (
            <input
              {...props}
              type="number"
              min="1"
              step="1"
              inputMode="numeric"
              value={values.maxTokens}
              onInput={set('maxTokens')}
            />
          )}
        </Field>
        <Field id="budget-action" label="At the limit" error={errors.fields.action}>
          {(props) => (
            <select {...props} value={values.action} onChange={set('action')}>
              <option value="block">Block calls</option>
              <option value="warn">Warn only</option>
            </select>
          )}
        </Field>
        <Field id="budget-warn" label="Warn at (% of a limit)" error={errors.fields.warnAtFraction}>
          {(props) => (
            <input
              {...props}
              type="number"
              min="1"
              max="99"
              step="any"
              inputMode="decimal"
              value={values.warnAtPercent}
              onInput={set('warnAtPercent')}
            />
          )}
        </Field>
      </div>
      <div class="row">
        <button type="submit" class="primary" disabled={isBusy}>
          Save budget
        </button>
      </div>
    </form>
  );
}
