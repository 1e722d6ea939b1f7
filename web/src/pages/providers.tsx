// Providers: the configured LLM providers as cards (type, base URL, models, whether a key is stored, who uses each),
// add and edit (the API key write-only), a live test of one model (models.test) and delete with confirmation.
import { useState } from 'preact/hooks';
import { ErrorNotice, Field, FormActions, KeyValues, Loading, Notice, PageTitle, Section } from '../components/ui';
import { fieldErrorsOf } from '../lib/field-errors';
import { formatDuration } from '../lib/format';
import { call, type ResultOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';
import { fieldSetter } from '../lib/form-values';
import { useSubmission } from '../lib/use-submission';

type Provider = ResultOf<'providers.list'>['providers'][number];

const TYPES = ['openai', 'anthropic', 'google', 'openai-compatible'] as const;
type ProviderType = (typeof TYPES)[number];

const FIELDS = ['name', 'type', 'baseUrl', 'apiKey', 'timeoutMs', 'models'] as const;

function isProviderType(value: string): value is ProviderType {
  return TYPES.some((type) => type === value);
}

/** Model ids typed one a line or separated by commas. */
function modelIds(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[\n,]/)
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    ),
  ];
}

function ProviderForm({
  provider,
  onSaved,
  onCancel,
}: {
  provider?: Provider;
  onSaved: (name: string, created: boolean) => void;
  onCancel?: () => void;
}) {
  const isEdit = provider !== undefined;
  const prefix = isEdit ? `edit-provider-${provider.name}` : 'new-provider';
  const [values, setValues] = useState({
    name: provider?.name ?? '',
    type: provider?.type ?? 'openai-compatible',
    baseUrl: provider?.baseUrl ?? '',
    apiKey: '',
    timeoutMs: provider === undefined ? '' : String(provider.timeoutMs),
    models: provider?.models.map((model) => model.id).join('\n') ?? '',
  });
  const { error, isBusy, submitWith } = useSubmission();
  const errors = fieldErrorsOf(error, FIELDS);
  const isKeyStored = provider?.secrets.apiKey.isSet === true;
  const set = fieldSetter(values, setValues);

  async function submit(event: Event) {
    event.preventDefault();
    if (!isProviderType(values.type)) return;
    const { type } = values;
    const timeoutMs = values.timeoutMs.trim() === '' ? undefined : Number(values.timeoutMs);
    await submitWith(async () => {
      const saved = await call('providers.save', {
        name: values.name.trim(),
        type,
        baseUrl: values.baseUrl.trim() === '' ? null : values.baseUrl.trim(),
        // Empty keeps the stored key: the key is never read back, only replaced.
        ...(values.apiKey === '' ? {} : { apiKey: values.apiKey }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        models: modelIds(values.models),
      });
      onSaved(saved.provider.name, saved.created);
    });
  }

  return (
    <form
      onSubmit={(event) => void submit(event)}
      aria-label={isEdit ? `Edit provider ${provider.name}` : 'New provider'}
      noValidate
    >
      {errors.general === undefined ? null : <Notice tone="error">{errors.general}</Notice>}
      <div class="form-grid">
        {isEdit ? null : (
          <Field id={`${prefix}-name`} label="Name" error={errors.fields.name} hint="What agents name it, e.g. local.">
            {(props) => <input {...props} value={values.name} onInput={set('name')} required />}
          </Field>
        )}
        <Field id={`${prefix}-type`} label="Type" error={errors.fields.type}>
          {(props) => (
            <select {...props} value={values.type} onChange={set('type')}>
              {TYPES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          id={`${prefix}-base-url`}
          label="Base URL"
          error={errors.fields.baseUrl}
          hint={provider === undefined ? "Empty: the type's default." : `Empty: ${provider.defaultBaseUrl}`}
        >
          {(props) => <input {...props} type="url" value={values.baseUrl} onInput={set('baseUrl')} />}
        </Field>
        <Field
          id={`${prefix}-api-key`}
          label="API key"
          error={errors.fields.apiKey}
          {...(isKeyStored ? { hint: 'Stored — leave empty to keep.' } : {})}
        >
          {(props) => (
            <input
              {...props}
              type="password"
              autocomplete="new-password"
              placeholder={isKeyStored ? 'stored — leave empty to keep' : ''}
              value={values.apiKey}
              onInput={set('apiKey')}
            />
          )}
        </Field>
        <Field id={`${prefix}-timeout`} label="Timeout (ms)" error={errors.fields.timeoutMs}>
          {(props) => <input {...props} inputMode="numeric" value={values.timeoutMs} onInput={set('timeoutMs')} />}
        </Field>
      </div>
      <Field
        id={`${prefix}-models`}
        label="Models"
        error={errors.fields.models}
        hint="Model ids, one a line or separated by commas."
      >
        {(props) => <textarea {...props} rows={3} value={values.models} onInput={set('models')} />}
      </Field>
      <FormActions submitLabel={isEdit ? 'Save provider' : 'Add provider'} isBusy={isBusy} onCancel={onCancel} />
    </form>
  );
}

function ProviderCard({ provider, onChanged }: { provider: Provider; onChanged: (note: string) => void }) {
  const [isEditing, setEditing] = useState(false);
  const [model, setModel] = useState(provider.models[0]?.id ?? '');
  const [test, setTest] = useState<ResultOf<'models.test'> | undefined>(undefined);
  const [isTesting, setTesting] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const modelSelect = `provider-${provider.name}-test-model`;

  async function runTest() {
    setError(undefined);
    setTest(undefined);
    setTesting(true);
    try {
      setTest(await call('models.test', { provider: provider.name, model }));
    } catch (failure) {
      setError(failure);
    } finally {
      setTesting(false);
    }
  }

  async function remove() {
    setError(undefined);
    if (!confirm(`Delete provider ${provider.name}?`)) return;
    try {
      await call('providers.delete', { name: provider.name });
      onChanged(`Provider ${provider.name} deleted.`);
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <Section
      title={provider.name}
      actions={
        <>
          <button type="button" aria-expanded={isEditing} onClick={() => setEditing(!isEditing)}>
            Edit
          </button>
          <button type="button" class="danger" onClick={() => void remove()}>
            Delete
          </button>
        </>
      }
    >
      <ErrorNotice error={error} />
      <KeyValues
        rows={[
          ['Type', provider.type],
          ['Base URL', <code key="url">{provider.baseUrl ?? `${provider.defaultBaseUrl} (default)`}</code>],
          [
            'API key',
            provider.secrets.apiKey.isSet ? <span class="badge ok">stored</span> : <span class="badge">not set</span>,
          ],
          ['Timeout', formatDuration(provider.timeoutMs)],
          ['Models', provider.models.length === 0 ? 'none listed' : provider.models.map((m) => m.id).join(', ')],
          ['Used by', provider.usedBy.length === 0 ? 'nothing' : provider.usedBy.join(', ')],
        ]}
      />
      <div class="row">
        <label for={modelSelect}>Model to test</label>
        <select id={modelSelect} value={model} onChange={(event) => setModel(event.currentTarget.value)}>
          {provider.models.length === 0 ? <option value="">no models listed</option> : null}
          {provider.models.map((entry) => (
            <option key={entry.id} value={entry.id}>
              {entry.id}
            </option>
          ))}
        </select>
        <button type="button" disabled={model === '' || isTesting} onClick={() => void runTest()}>
          {isTesting ? 'Testing…' : 'Test'}
        </button>
        {test === undefined ? null : (
          <span role="status" class="provider-test">
            {test.ok ? <span class="badge ok">ok</span> : <span class="badge bad">failed</span>}{' '}
            {formatDuration(test.latencyMs)}
            {test.error === undefined ? '' : `: ${test.error}`}
          </span>
        )}
      </div>
      {isEditing ? (
        <ProviderForm
          provider={provider}
          onSaved={(name) => {
            setEditing(false);
            onChanged(`Provider ${name} saved.`);
          }}
          onCancel={() => setEditing(false)}
        />
      ) : null}
    </Section>
  );
}

export default function ProvidersPage() {
  const providers = useAsync(() => call('providers.list'), []);
  const [note, setNote] = useState<string | undefined>(undefined);
  const [isAdding, setAdding] = useState(false);
  const changed = (text: string) => {
    setNote(text);
    providers.reload();
  };
  return (
    <>
      <PageTitle>Providers</PageTitle>
      {note === undefined ? null : <Notice tone="ok">{note}</Notice>}
      <Section
        title="New provider"
        actions={
          <button type="button" aria-expanded={isAdding} onClick={() => setAdding(!isAdding)}>
            {isAdding ? 'Close' : 'Add provider'}
          </button>
        }
      >
        {isAdding ? (
          <ProviderForm
            onSaved={(name, created) => {
              setAdding(false);
              changed(`Provider ${name} ${created ? 'added' : 'saved'}.`);
            }}
          />
        ) : (
          <p class="muted">
            Providers are saved to the config file (one commit each) and are live at once; API keys go to secrets.yaml
            and are never shown again.
          </p>
        )}
      </Section>
      <Loading isLoading={providers.isLoading} />
      <ErrorNotice error={providers.error} />
      {providers.data?.count === 0 ? <p class="muted">No provider is configured yet.</p> : null}
      {(providers.data?.providers ?? []).map((provider) => (
        <ProviderCard key={provider.name} provider={provider} onChanged={changed} />
      ))}
    </>
  );
}
