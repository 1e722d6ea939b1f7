// Browser: status, tabs and a screenshot of the current tab when the gateway offers browser.*; otherwise "not available".
import { useState } from 'preact/hooks';
import { ErrorNotice, KeyValues, Loading, Notice, PageTitle, Section } from '../components/ui';
import { call, RpcError, type ResultOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';

/** -32601 (method not found) or an `unavailable` kind: this gateway has no browser to drive. */
function isUnavailable(error: unknown): boolean {
  return error instanceof RpcError && (error.code === -32601 || error.kind === 'unavailable');
}

async function hasBrowserMethods(): Promise<boolean> {
  const document = await call('rpc.discover');
  return (document.methods ?? []).some((method) => method.name === 'browser.status');
}

function NotAvailable() {
  return (
    <Notice>
      The browser is not available on this gateway (no browser.* methods, or the browser is disabled in the config).
    </Notice>
  );
}

function BrowserPanel() {
  const [version, setVersion] = useState(0);
  const status = useAsync(() => call('browser.status'), [version]);
  const tabs = useAsync(
    (): Promise<ResultOf<'browser.tabs'>> =>
      status.data?.running === true ? call('browser.tabs') : Promise.resolve({ tabs: [] }),
    [status.data],
  );
  const [shot, setShot] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  async function act(run: () => Promise<void>) {
    setError(undefined);
    try {
      await run();
      setVersion(version + 1);
    } catch (failure) {
      setError(failure);
    }
  }
  if (isUnavailable(status.error)) return <NotAvailable />;
  const running = status.data?.running === true;
  return (
    <>
      <ErrorNotice error={error} />
      <Section
        title="Status"
        actions={
          <button
            type="button"
            onClick={() => void act(async () => void (await call(running ? 'browser.stop' : 'browser.start')))}
          >
            {running ? 'Stop browser' : 'Start browser'}
          </button>
        }
      >
        <Loading isLoading={status.isLoading} />
        <ErrorNotice error={status.error} />
        {status.data === undefined ? null : (
          <KeyValues
            rows={[
              ['Running', running ? 'yes' : 'no'],
              ['Current page', status.data.url ?? '—'],
              ['Tabs', String(status.data.tabCount ?? 0)],
            ]}
          />
        )}
      </Section>
      <Section title="Tabs">
        <ErrorNotice error={tabs.error} />
        {(tabs.data?.tabs ?? []).length === 0 ? <p class="muted">No tabs.</p> : null}
        <ul>
          {(tabs.data?.tabs ?? []).map((tab) => (
            <li key={tab.id}>
              <strong>{tab.title === '' ? '(untitled)' : tab.title}</strong> <span class="muted">{tab.url}</span>
            </li>
          ))}
        </ul>
      </Section>
      <Section
        title="Screenshot"
        actions={
          <button
            type="button"
            disabled={!running}
            onClick={() => void act(async () => setShot((await call('browser.screenshot', {})).data))}
          >
            Take screenshot
          </button>
        }
      >
        {shot === undefined ? (
          <p class="muted">No screenshot yet.</p>
        ) : (
          <img class="screenshot" src={`data:image/png;base64,${shot}`} alt="Screenshot of the browser's current tab" />
        )}
      </Section>
    </>
  );
}

export default function BrowserPage() {
  const available = useAsync(hasBrowserMethods, []);
  return (
    <>
      <PageTitle>Browser</PageTitle>
      <Loading isLoading={available.isLoading} />
      <ErrorNotice error={available.error} />
      {available.data === false ? <NotAvailable /> : available.data === true ? <BrowserPanel /> : null}
    </>
  );
}
