// One config section edited as YAML text (config.getSectionYaml / config.setSectionYaml): comments and layout kept,
// Validate checks without writing, errors (naming the key and line) shown at the field.
import { useState } from 'preact/hooks';
import { errorText } from '../lib/format';
import { call, type ParamsOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';
import { ErrorNotice, Field, Loading, Notice } from './ui';

export type SectionName = ParamsOf<'config.getSectionYaml'>['section'];

/** Whether `name` is a section the config `config.read` answered holds (a section left unset is edited as JSON). */
export function isSectionOf(
  config: Readonly<Partial<Record<SectionName, unknown>>>,
  name: string,
): name is SectionName {
  return Object.hasOwn(config, name);
}

export function ConfigYamlEditor({ name, onSaved }: { name: SectionName; onSaved: (note: string) => void }) {
  const current = useAsync(() => call('config.getSectionYaml', { section: name }), [name]);
  if (current.data === undefined)
    return (
      <>
        <Loading isLoading={current.isLoading} />
        <ErrorNotice error={current.error} />
      </>
    );
  return <YamlForm key={name} name={name} initial={current.data.yaml} onSaved={onSaved} />;
}

function YamlForm({ name, initial, onSaved }: { name: SectionName; initial: string; onSaved: (note: string) => void }) {
  const [text, setText] = useState(initial);
  const [error, setError] = useState<string | undefined>(undefined);
  const [note, setNote] = useState<string | undefined>(undefined);
  const [isBusy, setBusy] = useState(false);

  async function submit(dryRun: boolean) {
    setError(undefined);
    setNote(undefined);
    setBusy(true);
    try {
      const result = await call('config.setSectionYaml', { section: name, yaml: text, ...(dryRun ? { dryRun } : {}) });
      if (dryRun)
        setNote(
          result.sections.length === 0
            ? 'Valid; nothing would change.'
            : `Valid; saving changes ${result.sections.join(', ')}.`,
        );
      else if (result.sections.length === 0) setNote('Nothing changed.');
      // The page reloads the config after a save, so the note lives in the page.
      else onSaved(`Saved ${name}.`);
    } catch (failure) {
      setError(errorText(failure).replace(/^Invalid params: /, ''));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      class="stack"
      onSubmit={(event) => {
        event.preventDefault();
        void submit(false);
      }}
    >
      {note === undefined ? null : <Notice tone="ok">{note}</Notice>}
      <Field
        id={`config-yaml-${name}`}
        label={`Section ${name} (YAML; "***" keeps a stored secret)`}
        error={error}
        hint="Comments and layout are kept as written; an empty text removes the section."
      >
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
        <button type="button" disabled={isBusy} onClick={() => void submit(true)}>
          Validate
        </button>
        <button type="submit" class="primary" disabled={isBusy}>
          Save section
        </button>
      </div>
    </form>
  );
}
