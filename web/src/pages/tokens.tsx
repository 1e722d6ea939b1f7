// Tokens: list, create (the secret is shown once, with a copy button), revoke and rotate.
import { useState } from 'preact/hooks';
import { ErrorNotice, Field, Loading, Notice, PageTitle, Section } from '../components/ui';
import { fieldErrorsOf } from '../lib/field-errors';
import { formatTime } from '../lib/format';
import { call, type ParamsOf, type ResultOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';
import { TableExport } from '../components/table-export';

/** A scope a token can be given, as tokens.create reads it. */
type Scope = ParamsOf<'tokens.create'>['scopes'][number];
const SCOPES = ['rpc', 'admin', '*', 'api', 'ws', 'mcp-client'] as const satisfies readonly Scope[];

type TokenEntry = ResultOf<'tokens.list'>['tokens'][number];
/** A new or rotated token with its secret, as tokens.create and tokens.rotate answer it. */
type Issued = ResultOf<'tokens.create'>;

function SecretOnce({ issued, onDismiss }: { issued: Issued; onDismiss: () => void }) {
  const [copied, setCopied] = useState<string | undefined>(undefined);
  async function copy() {
    try {
      await navigator.clipboard.writeText(issued.secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the secret and copy it.');
    }
  }
  return (
    <div class="notice ok stack" role="status" aria-label="New secret">
      <p>
        Secret of <strong>{issued.id}</strong> — shown only now; store it somewhere safe.
      </p>
      <div class="secret">
        <code data-testid="new-secret">{issued.secret}</code>
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" onClick={onDismiss}>
          Done
        </button>
      </div>
      {copied === undefined ? null : <p>{copied}</p>}
    </div>
  );
}

export default function TokensPage() {
  const tokens = useAsync(() => call('tokens.list'), []);
  const [id, setId] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['rpc']);
  const [issued, setIssued] = useState<Issued | undefined>(undefined);
  const [createError, setCreateError] = useState<unknown>(undefined);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const [note, setNote] = useState<string | undefined>(undefined);
  const errors = fieldErrorsOf(createError, ['id', 'scopes']);

  async function create(event: Event) {
    event.preventDefault();
    setCreateError(undefined);
    try {
      setIssued(await call('tokens.create', { id: id.trim(), scopes }));
      setId('');
      tokens.reload();
    } catch (error) {
      setCreateError(error);
    }
  }
  async function act(token: TokenEntry, method: 'tokens.revoke' | 'tokens.rotate') {
    setActionError(undefined);
    setNote(undefined);
    const verb = method === 'tokens.revoke' ? 'Revoke' : 'Rotate';
    if (!confirm(`${verb} token ${token.id}? Its current secret stops working at once.`)) return;
    try {
      if (method === 'tokens.rotate') setIssued(await call(method, { id: token.id }));
      else {
        await call(method, { id: token.id });
        setNote(`Token ${token.id} revoked.`);
      }
      tokens.reload();
    } catch (error) {
      setActionError(error);
    }
  }

  return (
    <>
      <PageTitle>Tokens</PageTitle>
      {issued === undefined ? null : <SecretOnce issued={issued} onDismiss={() => setIssued(undefined)} />}
      <Section title="Create a token">
        <form onSubmit={(event) => void create(event)} noValidate>
          {errors.general === undefined ? null : <Notice tone="error">{errors.general}</Notice>}
          <Field
            id="token-id"
            label="Token id"
            error={errors.fields.id}
            hint="Letters, digits, dot, underscore, hyphen."
          >
            {(props) => <input {...props} value={id} onInput={(event) => setId(event.currentTarget.value)} />}
          </Field>
          <fieldset
            class="row"
            aria-describedby={errors.fields.scopes === undefined ? undefined : 'token-scopes-error'}
          >
            <legend>Scopes</legend>
            {SCOPES.map((scope) => (
              <label key={scope} class="row">
                <input
                  type="checkbox"
                  checked={scopes.includes(scope)}
                  onChange={(event) =>
                    setScopes(
                      event.currentTarget.checked ? [...scopes, scope] : scopes.filter((entry) => entry !== scope),
                    )
                  }
                />
                {scope}
              </label>
            ))}
          </fieldset>
          {errors.fields.scopes === undefined ? null : (
            <small id="token-scopes-error" class="field-error">
              {errors.fields.scopes}
            </small>
          )}
          <div class="row">
            <button type="submit" class="primary">
              Create token
            </button>
          </div>
        </form>
      </Section>
      <Section title="Tokens">
        {note === undefined ? null : <Notice tone="ok">{note}</Notice>}
        <ErrorNotice error={actionError} />
        <Loading isLoading={tokens.isLoading} />
        <ErrorNotice error={tokens.error} />
        <TableExport name="tokens">
          <table class="stacked">
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Source</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {(tokens.data?.tokens ?? []).map((token) => (
                <tr key={token.id}>
                  <td data-label="Id">{token.id}</td>
                  <td data-label="Scopes">{token.scopes.length === 0 ? 'all' : token.scopes.join(', ')}</td>
                  <td data-label="Created">{formatTime(Date.parse(token.createdAt))}</td>
                  <td data-label="Source">{token.source}</td>
                  <td data-label="Actions">
                    {token.source === 'api' ? (
                      <div class="actions">
                        <button
                          type="button"
                          onClick={() => void act(token, 'tokens.rotate')}
                          aria-label={`Rotate ${token.id}`}
                        >
                          Rotate
                        </button>
                        <button
                          type="button"
                          class="danger"
                          onClick={() => void act(token, 'tokens.revoke')}
                          aria-label={`Revoke ${token.id}`}
                        >
                          Revoke
                        </button>
                      </div>
                    ) : (
                      <span class="muted">in config file</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableExport>
      </Section>
    </>
  );
}
