// Sign in: paste a gateway token once; it is checked against /api and kept in sessionStorage only.
import { useState } from 'preact/hooks';
import { Field } from './components/ui';
import { signIn, signInNotice } from './lib/auth';
import { errorText } from './lib/format';
import { navigate, route } from './lib/router';

async function check(secret: string): Promise<string | undefined> {
  const response = await fetch('/api/agents', { headers: { authorization: `Bearer ${secret}` } });
  if (response.status === 401) return 'This token is not accepted by the gateway.';
  if (!response.ok && response.status !== 403) return `The gateway answered ${response.status}.`;
  return undefined;
}

export function SignIn() {
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<string | undefined>(signInNotice.value);
  const [isBusy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    const trimmed = secret.trim();
    if (trimmed === '') {
      setError('Paste a token.');
      return;
    }
    setBusy(true);
    try {
      const problem = await check(trimmed);
      if (problem !== undefined) setError(problem);
      else {
        // Whatever the address said before, the token never goes into it.
        if (location.search.includes('token=')) navigate(route.value.page, { replace: true });
        signIn(trimmed);
      }
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="sign-in" id="main">
      <form class="card" onSubmit={(event) => void submit(event)} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Agent Gateway</h1>
        <p class="muted">
          Paste a gateway token (an admin token, scope *, reaches every page). It stays in this tab only.
        </p>
        <Field id="token" label="Token" error={error}>
          {(props) => (
            <input
              {...props}
              type="password"
              autoComplete="off"
              spellcheck={false}
              value={secret}
              onInput={(event) => setSecret(event.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" class="primary" disabled={isBusy}>
          {isBusy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
