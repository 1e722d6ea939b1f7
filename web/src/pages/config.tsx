// Config: each section redacted, a section edited as JSON or as YAML (validation errors shown), history with diffs and
// rollback.
import { useState } from 'preact/hooks';
import { ConfigHistory } from '../components/config-history';
import { ConfigYamlEditor, isSectionOf } from '../components/config-yaml-editor';
import { ErrorNotice, Field, Loading, Notice, PageTitle, Section } from '../components/ui';
import { errorText } from '../lib/format';
import { mergePatch } from '../lib/json-patch';
import { call, type ResultOf } from '../lib/rpc';
import { navigate, pathWith, route } from '../lib/router';
import { useAsync } from '../lib/use-async';

/** config.read without a section: the whole config, secrets shown as ***, and its section names. */
type WholeConfig = Extract<ResultOf<'config.read'>, { sections: readonly string[] }>;

/** Asked for no section, config.read answers the whole config; a section's own value has no `sections` list. */
function isWholeConfig(read: ResultOf<'config.read'>): read is WholeConfig {
  return typeof read === 'object' && read !== null && 'sections' in read && Array.isArray(read.sections);
}

/** One section's value by its name, as the editor starts from it. */
function sectionValue(config: Readonly<Record<string, unknown>>, name: string): unknown {
  return config[name];
}

async function readWholeConfig(): Promise<WholeConfig> {
  const read = await call('config.read');
  if (!isWholeConfig(read)) throw new Error('config.read did not answer the whole config');
  return read;
}

function SectionEditor({ name, value, onSaved }: { name: string; value: unknown; onSaved: (note: string) => void }) {
  const [text, setText] = useState(JSON.stringify(value ?? {}, null, 2));
  const [error, setError] = useState<string | undefined>(undefined);
  const [note, setNote] = useState<string | undefined>(undefined);
  async function save(event: Event) {
    event.preventDefault();
    setError(undefined);
    setNote(undefined);
    let edited: unknown;
    try {
      edited = JSON.parse(text);
    } catch (failure) {
      setError(`Not valid JSON: ${errorText(failure)}`);
      return;
    }
    const patch = mergePatch(value ?? {}, edited);
    if (patch === undefined) {
      setNote('Nothing changed.');
      return;
    }
    try {
      await call('config.patch', { [name]: patch });
      // The editor is rebuilt from the saved config, so the note lives in the page.
      onSaved(`Saved ${name}.`);
    } catch (failure) {
      setError(errorText(failure));
    }
  }
  return (
    <form onSubmit={(event) => void save(event)} class="stack">
      {note === undefined ? null : <Notice tone="ok">{note}</Notice>}
      <Field id={`config-${name}`} label={`Section ${name} (JSON; "***" keeps a stored secret)`} error={error}>
        {(props) => (
          <textarea
            {...props}
            rows={16}
            spellcheck={false}
            value={text}
            onInput={(event) => setText(event.currentTarget.value)}
          />
        )}
      </Field>
      <div class="row">
        <button type="submit" class="primary">
          Save section
        </button>
      </div>
    </form>
  );
}

export default function ConfigPage() {
  const selected = route.value.query.get('section') ?? '';
  const [version, setVersion] = useState(0);
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const [format, setFormat] = useState<'json' | 'yaml'>('json');
  const config = useAsync(readWholeConfig, [version]);
  const changed = () => setVersion(version + 1);
  const sections = config.data?.sections ?? [];
  return (
    <>
      <PageTitle>Config</PageTitle>
      <Section title="Sections">
        {saved === undefined ? null : <Notice tone="ok">{saved}</Notice>}
        <Loading isLoading={config.isLoading && config.data === undefined} />
        <ErrorNotice error={config.error} />
        <div class="row">
          <label for="config-section">Section</label>
          <select
            id="config-section"
            value={selected}
            onChange={(event) => {
              setSaved(undefined);
              navigate(pathWith('config', { section: event.currentTarget.value }), { replace: true });
            }}
          >
            <option value="">Choose a section</option>
            {sections.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
          <label for="config-format">Edit as</label>
          <select
            id="config-format"
            value={format}
            onChange={(event) => setFormat(event.currentTarget.value === 'yaml' ? 'yaml' : 'json')}
          >
            <option value="json">JSON</option>
            <option value="yaml">YAML</option>
          </select>
        </div>
        {/* The editor starts from the loaded section, so it waits for a reload after a save or rollback to finish. */}
        {selected === '' || config.data === undefined || config.isLoading ? (
          <p class="muted">Secrets (token secrets, API keys, the webhook secret) are shown as ***.</p>
        ) : format === 'yaml' && isSectionOf(config.data.config, selected) ? (
          <ConfigYamlEditor
            key={`${selected}:${version}`}
            name={selected}
            onSaved={(note) => {
              setSaved(note);
              changed();
            }}
          />
        ) : (
          <SectionEditor
            key={`${selected}:${version}`}
            name={selected}
            value={sectionValue(config.data.config, selected)}
            onSaved={(note) => {
              setSaved(note);
              changed();
            }}
          />
        )}
      </Section>
      <ConfigHistory version={version} onRolledBack={changed} />
    </>
  );
}
