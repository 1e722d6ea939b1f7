// Add or edit a scheduled job: name, message, agent and its schedule (cron, interval or once); errors by field.
import { useState } from 'preact/hooks';
import { fieldErrorsOf } from '../lib/field-errors';
import { call, type ResultOf } from '../lib/rpc';
import { Field, FormActions, Notice } from './ui';
import { fieldSetter } from '../lib/form-values';

/** A job as cron.list answers it. */
export type JobEntry = ResultOf<'cron.list'>['jobs'][number];

const FIELDS = ['name', 'message', 'agentId', 'kind', 'expr', 'tz', 'everyMs', 'at', 'enabled'];

export function JobForm({
  job,
  onSaved,
  onCancel,
}: {
  job?: JobEntry;
  onSaved: (note: string) => void;
  onCancel?: () => void;
}) {
  const prefix = job === undefined ? 'new-job' : `job-${job.id}`;
  const [values, setValues] = useState({
    name: job?.name ?? '',
    // A job entry does not carry its message; editing leaves it as it is unless a new one is typed.
    message: '',
    agentId: job?.agentId ?? '',
    kind: job?.scheduleKind ?? 'cron',
    expr: job?.expr ?? '0 * * * *',
    tz: job?.tz ?? 'UTC',
    everyMs: job?.everyMs === undefined ? '3600000' : String(job.everyMs),
    at: job?.at ?? '',
    enabled: job?.enabled ?? true,
  });
  const [error, setError] = useState<unknown>(undefined);
  const errors = fieldErrorsOf(error, FIELDS);
  const text = fieldSetter(values, setValues);

  async function submit(event: Event) {
    event.preventDefault();
    setError(undefined);
    const schedule =
      values.kind === 'cron'
        ? { kind: 'cron' as const, expr: values.expr, tz: values.tz }
        : values.kind === 'interval'
          ? { kind: 'interval' as const, everyMs: Number(values.everyMs) }
          : { kind: 'once' as const, at: values.at };
    const name = values.name.trim();
    const agentId = values.agentId.trim() === '' ? {} : { agentId: values.agentId.trim() };
    try {
      if (job === undefined) await call('cron.add', { name, message: values.message, ...agentId, schedule });
      else
        await call('cron.update', {
          name,
          ownerId: job.ownerId,
          ...(values.message.trim() === '' ? {} : { message: values.message }),
          ...agentId,
          schedule,
          enabled: values.enabled,
        });
      onSaved(job === undefined ? `Job ${name} added.` : `Job ${name} saved.`);
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <form
      onSubmit={(event) => void submit(event)}
      aria-label={job === undefined ? 'New job' : `Edit job ${job.name}`}
      noValidate
    >
      {errors.general === undefined ? null : <Notice tone="error">{errors.general}</Notice>}
      <div class="form-grid">
        <Field id={`${prefix}-name`} label="Name" error={errors.fields.name}>
          {(props) => <input {...props} value={values.name} onInput={text('name')} readOnly={job !== undefined} />}
        </Field>
        <Field id={`${prefix}-agent`} label="Agent id (optional)" error={errors.fields.agentId}>
          {(props) => <input {...props} value={values.agentId} onInput={text('agentId')} />}
        </Field>
        <Field id={`${prefix}-kind`} label="Schedule" error={errors.fields.kind}>
          {(props) => (
            <select {...props} value={values.kind} onChange={text('kind')}>
              <option value="cron">cron expression</option>
              <option value="interval">every N ms</option>
              <option value="once">once, at a time</option>
            </select>
          )}
        </Field>
        {values.kind === 'cron' ? (
          <>
            <Field id={`${prefix}-expr`} label="Cron expression" error={errors.fields.expr}>
              {(props) => <input {...props} value={values.expr} onInput={text('expr')} />}
            </Field>
            <Field id={`${prefix}-tz`} label="Time zone (IANA)" error={errors.fields.tz}>
              {(props) => <input {...props} value={values.tz} onInput={text('tz')} />}
            </Field>
          </>
        ) : values.kind === 'interval' ? (
          <Field id={`${prefix}-every`} label="Every (ms)" error={errors.fields.everyMs}>
            {(props) => <input {...props} inputMode="numeric" value={values.everyMs} onInput={text('everyMs')} />}
          </Field>
        ) : (
          <Field id={`${prefix}-at`} label="At (ISO 8601, future)" error={errors.fields.at}>
            {(props) => <input {...props} value={values.at} placeholder="2030-01-01T09:00:00Z" onInput={text('at')} />}
          </Field>
        )}
      </div>
      <Field
        id={`${prefix}-message`}
        label={job === undefined ? 'Message to the agent' : 'Message (empty keeps the current one)'}
        error={errors.fields.message}
      >
        {(props) => <textarea {...props} rows={3} value={values.message} onInput={text('message')} />}
      </Field>
      {job === undefined ? null : (
        <label class="row">
          <input
            type="checkbox"
            checked={values.enabled}
            onChange={(event) => setValues({ ...values, enabled: event.currentTarget.checked })}
          />{' '}
          Enabled
        </label>
      )}
      <FormActions submitLabel={job === undefined ? 'Add job' : 'Save job'} onCancel={onCancel} />
    </form>
  );
}
