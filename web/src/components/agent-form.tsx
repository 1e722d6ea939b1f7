// Create or edit an agent: name, id, provider, model, tools and skills picked from what is configured (tools.list,
// providers.list), system prompt, steps; server errors shown by their field.
import { useState } from 'preact/hooks';
import { fieldErrorsOf } from '../lib/field-errors';
import { call, type ResultOf } from '../lib/rpc';
import type { AgentChoices, ToolChoice } from '../lib/agent-choices';
import { Field, FormActions, Notice } from './ui';
import { fieldSetter } from '../lib/form-values';
import { useSubmission } from '../lib/use-submission';

/** The fields of an agent's configuration the form edits, as agents.get answers them. */
export type AgentConfig = Pick<
  ResultOf<'agents.get'>,
  'name' | 'provider' | 'model' | 'systemPrompt' | 'maxSteps' | 'tools' | 'skills'
>;

interface AgentFormProps {
  /** Editing this agent; creating a new one when absent. */
  agentId?: string;
  initial?: AgentConfig;
  choices: AgentChoices;
  onSaved: (agentId: string) => void;
  onCancel?: () => void;
}

const FIELDS = ['agentId', 'name', 'provider', 'model', 'systemPrompt', 'maxSteps', 'tools', 'skills'] as const;

/** The picks offered: what tools.list answered, plus what the agent already has that it did not list. */
function offered(choices: readonly ToolChoice[], picked: readonly string[], source: string): ToolChoice[] {
  const known = new Set(choices.map((choice) => choice.name));
  const extra = picked
    .filter((name) => !known.has(name))
    .map((name) => ({ name, source, description: 'Not offered by this gateway now' }));
  return [...choices, ...extra];
}

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
  const initialSkills = initial?.skills;
  const [skills, setSkills] = useState<string[]>(Array.isArray(initialSkills) ? initialSkills : []);
  const toolChoices = offered(
    choices.tools.filter((tool) => tool.source !== 'skill'),
    tools,
    'builtin',
  );
  const skillChoices = offered(
    choices.tools.filter((tool) => tool.source === 'skill'),
    skills,
    'skill',
  );
  const models = [
    ...new Set([...(choices.models[values.provider] ?? []), ...(values.model === '' ? [] : [values.model])]),
  ];
  const { error, isBusy, submitWith } = useSubmission();
  const errors = fieldErrorsOf(error, FIELDS);
  const set = fieldSetter(values, setValues);

  async function submit(event: Event) {
    event.preventDefault();
    const maxSteps = values.maxSteps.trim() === '' ? undefined : Number(values.maxSteps);
    const params = {
      name: values.name,
      ...(values.provider === '' ? {} : { provider: values.provider }),
      ...(values.model.trim() === '' ? {} : { model: values.model.trim() }),
      ...(values.systemPrompt === '' ? {} : { systemPrompt: values.systemPrompt }),
      ...(maxSteps === undefined ? {} : { maxSteps }),
      tools,
      // "*" (every skill) is kept as it is: the picks below only edit a list of names.
      ...(initialSkills === '*' ? {} : { skills }),
    };
    await submitWith(async () => {
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
    });
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
      <Picks
        id={`${prefix}-tools`}
        legend="Tools"
        choices={toolChoices}
        picked={tools}
        onChange={setTools}
        error={errors.fields.tools}
      />
      {initialSkills === '*' ? (
        <p class="muted">Skills: every loaded skill (set in the config).</p>
      ) : (
        <Picks
          id={`${prefix}-skills`}
          legend="Skills"
          choices={skillChoices}
          picked={skills}
          onChange={setSkills}
          error={errors.fields.skills}
        />
      )}
      <Field id={`${prefix}-prompt`} label="System prompt" error={errors.fields.systemPrompt}>
        {(props) => <textarea {...props} value={values.systemPrompt} onInput={set('systemPrompt')} />}
      </Field>
      <FormActions submitLabel={isEdit ? 'Save agent' : 'Create agent'} isBusy={isBusy} onCancel={onCancel} />
    </form>
  );
}

interface PicksProps {
  id: string;
  legend: string;
  choices: readonly ToolChoice[];
  picked: readonly string[];
  onChange: (update: (current: string[]) => string[]) => void;
  error: string | undefined;
}

/** A checklist of tools (or skills), each with where it comes from and what it does. */
function Picks({ id, legend, choices, picked, onChange, error }: PicksProps) {
  return (
    <fieldset class="tool-picks described" aria-describedby={error === undefined ? undefined : `${id}-error`}>
      <legend>{legend}</legend>
      {choices.length === 0 ? <p class="muted">None to offer.</p> : null}
      {choices.map((choice, index) => (
        <label key={choice.name} class="check" title={choice.description}>
          <input
            type="checkbox"
            aria-label={choice.name}
            {...(choice.description === '' ? {} : { 'aria-describedby': `${id}-${index}-description` })}
            checked={picked.includes(choice.name)}
            onChange={(event) => {
              const isChecked = event.currentTarget.checked;
              onChange((current) =>
                isChecked ? [...current, choice.name] : current.filter((name) => name !== choice.name),
              );
            }}
          />
          <span>
            <code>{choice.name}</code>
            {choice.source === 'builtin' || choice.source === 'skill' ? null : (
              <span class="muted"> ({choice.source})</span>
            )}
          </span>
          {choice.description === '' ? null : (
            <small id={`${id}-${index}-description`} class="muted pick-description">
              {choice.description}
            </small>
          )}
        </label>
      ))}
      {error === undefined ? null : (
        <small id={`${id}-error`} class="field-error">
          {error}
        </small>
      )}
    </fieldset>
  );
}
