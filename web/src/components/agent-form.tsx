// Create or edit an agent: name, id, provider, model and tools picked from what is configured, system prompt, steps;
// server errors shown by their field.
import { useState } from 'preact/hooks';
import { fieldErrorsOf } from '../lib/field-errors';
import { call, type ResultOf } from '../lib/rpc';
import type { AgentChoices } from '../lib/agent-choices';
import { Field, Notice } from './ui';

/** The fields of an agent's configuration the form edits, as agents.get answers them. */
export type AgentConfig = Pick<
  ResultOf<'agents.get'>,
  'name' | 'provider' | 'model' | 'systemPrompt' | 'maxSteps' | 'tools'
>;

interface AgentFormProps {
  /** Editing this agent; creating a new one when absent. */
  agentId?: string;
  initial?: AgentConfig;
  choices: AgentChoices;
  onSaved: (agentId: string) => void;
  onCancel?: () => void;
}

const FIELDS = ['agentId', 'name', 'provider', 'model', 'systemPrompt', 'maxSteps', 'tools'] as const;

export function AgentForm({ agentId, initial, choices, onSaved, onCancel }: AgentFormProps) {
  const isEdit = agentId !== undefined;
  const prefix = isEdit ? `edit-${agentId}` : 'new-agent';
  const [values, setValues] = useState({
    agentId: '',
    name: initial?.name ?? '',
    provider: initial?.provider ?? '',
    model: initial?.model ?? '',
    systemPrompt: initial?.systemPrompt ?? '',
    maxSteps: initial?.maxSteps === undefined ? '' : String(initial.maxSteps),
  });
  const [tools, setTools] = useState<string[]>(initial?.tools ?? []);
  const toolChoices = [...new Set([...choices.tools, ...tools])];
  const models = [
    ...new Set([...(choices.models[values.provider] ?? []), ...(values.model === '' ? [] : [values.model])]),
  ];
  const [error, setError] = useState<unknown>(undefined);
  const [isBusy, setBusy] = useState(false);
  const errors = fieldErrorsOf(error, FIELDS);
  const set = (name: keyof typeof values) => (event: Event) => {
    const target = event.currentTarget;
    if (
      target instanceof HTMLInputElement ||
      target instanceof HTMLTextAreaElement ||
      target instanceof HTMLSelectElement
    )
      setValues({ ...values, [name]: target.value });
  };

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const maxSteps = values.maxSteps.trim() === '' ? undefined : Number(values.maxSteps);
    const params = {
      name: values.name,
      ...(values.provider === '' ? {} : { provider: values.provider }),
      ...(values.model.trim() === '' ? {} : { model: values.model.trim() }),
      ...(values.systemPrompt === '' ? {} : { systemPrompt: values.systemPrompt }),
      ...(maxSteps === undefined ? {} : { maxSteps }),
      tools,
    };
    try {
      if (isEdit) {
        await call('agents.update', { agentId, ...params });
        onSaved(agentId);
      } else {
        const created = await call('agents.create', {
          ...(values.agentId.trim() === '' ? {} : { agentId: values.agentId.trim() }),
          ...params,
        });
        onSaved(created.agentId);
      }
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      onSubmit={(event) => void submit(event)}
      aria-label={isEdit ? `Edit agent ${agentId}` : 'New agent'}
      noValidate
    >
      {errors.general === undefined ? null : <Notice tone="error">{errors.general}</Notice>}
      <div class="form-grid">
        {isEdit ? null : (
          <Field
            id={`${prefix}-id`}
            label="Agent id (optional)"
            error={errors.fields.agentId}
            hint="Derived from the name when empty."
          >
            {(props) => <input {...props} value={values.agentId} onInput={set('agentId')} />}
          </Field>
        )}
        <Field id={`${prefix}-name`} label="Name" error={errors.fields.name}>
          {(props) => <input {...props} value={values.name} onInput={set('name')} required />}
        </Field>
        <Field id={`${prefix}-provider`} label="Provider" error={errors.fields.provider}>
          {(props) => (
            <select
              {...props}
              value={values.provider}
              onChange={(event) => setValues({ ...values, provider: event.currentTarget.value, model: '' })}
            >
              <option value="">Gateway default</option>
              {[...new Set([...choices.providers, ...(values.provider === '' ? [] : [values.provider])])].map(
                (provider) => (
                  <option key={provider} value={provider}>
                    {provider}
                  </option>
                ),
              )}
            </select>
          )}
        </Field>
        <Field id={`${prefix}-model`} label="Model" error={errors.fields.model}>
          {(props) => (
            <select {...props} value={values.model} onChange={set('model')} disabled={values.provider === ''}>
              <option value="">{values.provider === '' ? 'Pick a provider first' : "The provider's default"}</option>
              {models.map((model) => (
                <option key={model} value={model}>
                  {model}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id={`${prefix}-steps`} label="Max steps" error={errors.fields.maxSteps}>
          {(props) => <input {...props} inputMode="numeric" value={values.maxSteps} onInput={set('maxSteps')} />}
        </Field>
      </div>
      <fieldset
        class="tool-picks"
        aria-describedby={errors.fields.tools === undefined ? undefined : `${prefix}-tools-error`}
      >
        <legend>Tools</legend>
        {toolChoices.length === 0 ? <p class="muted">No tools to offer.</p> : null}
        {toolChoices.map((tool) => (
          <label key={tool} class="check">
            <input
              type="checkbox"
              checked={tools.includes(tool)}
              onChange={(event) => {
                const isChecked = event.currentTarget.checked;
                setTools((current) => (isChecked ? [...current, tool] : current.filter((name) => name !== tool)));
              }}
            />{' '}
            <code>{tool}</code>
          </label>
        ))}
        {errors.fields.tools === undefined ? null : (
          <small id={`${prefix}-tools-error`} class="field-error">
            {errors.fields.tools}
          </small>
        )}
      </fieldset>
      <Field id={`${prefix}-prompt`} label="System prompt" error={errors.fields.systemPrompt}>
        {(props) => <textarea {...props} value={values.systemPrompt} onInput={set('systemPrompt')} />}
      </Field>
      <div class="row">
        <button type="submit" class="primary" disabled={isBusy}>
          {isEdit ? 'Save agent' : 'Create agent'}
        </button>
        {onCancel === undefined ? null : (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
