// The signed-in frame: skip link, header (connection, theme, sign out), navigation and the current page.
import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import { PendingBadge } from './components/pending-badge';
import { PAGES, type PageEntry } from './pages';
import { BudgetBanner } from './components/budget-banner';
import { signInNotice, signOut } from './lib/auth';
import { trackPendingApprovals } from './lib/pending-approvals';
import { connection } from './lib/rpc';
import { BASE, onLinkClick, route } from './lib/router';
import { applyTheme, nextTheme, theme } from './lib/theme';
import { errorText } from './lib/format';

const loaded = new Map<string, ComponentType>();

function PageHost({ entry }: { entry: PageEntry }) {
  const [component, setComponent] = useState<ComponentType | undefined>(() => loaded.get(entry.path));
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    const known = loaded.get(entry.path);
    if (known !== undefined) {
      setComponent(() => known);
      return;
    }
    setComponent(undefined);
    let isCurrent = true;
    entry.load().then(
      (module) => {
        loaded.set(entry.path, module.default);
        if (isCurrent) setComponent(() => module.default);
      },
      (failure: unknown) => isCurrent && setError(failure),
    );
    return () => {
      isCurrent = false;
    };
  }, [entry]);
  if (error !== undefined)
    return (
      <p class="notice error" role="alert">
        Could not load this page: {errorText(error)}
      </p>
    );
  if (component === undefined)
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );
  const Page = component;
  return <Page />;
}

const CONNECTION_LABEL = {
  idle: 'Offline',
  connecting: 'Connecting…',
  open: 'Connected',
  closed: 'Reconnecting…',
  unauthorized: 'Signed out',
};

export function Shell() {
  const [isMenuOpen, setMenuOpen] = useState(false);
  const state = connection.value;
  useEffect(() => {
    if (state !== 'unauthorized') return;
    signInNotice.value = 'The gateway closed the connection: the token was revoked or rotated. Sign in again.';
    signOut();
  }, [state]);
  useEffect(trackPendingApprovals, []);
  const page = route.value.page;
  const entry = PAGES.find((candidate) => candidate.path === page);
  const themeChoice = theme.value;
  return (
    <div class="layout">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <button
          type="button"
          class="menu-button"
          aria-expanded={isMenuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen(!isMenuOpen)}
        >
          Menu <PendingBadge />
        </button>
        <a class="brand" href={BASE} onClick={onLinkClick}>
          Agent Gateway
        </a>
        <span class={`conn conn-${state}`} role="status" aria-live="polite">
          {CONNECTION_LABEL[state]}
        </span>
        <button
          type="button"
          onClick={() => applyTheme(nextTheme(themeChoice))}
          aria-label={`Theme: ${themeChoice}. Change theme`}
        >
          Theme: {themeChoice}
        </button>
        <button
          type="button"
          onClick={() => {
            signInNotice.value = undefined;
            signOut();
          }}
        >
          Sign out
        </button>
      </header>
      <nav id="nav" class={`side${isMenuOpen ? ' open' : ''}`} aria-label="Pages">
        <ul>
          {PAGES.map((candidate) => (
            <li key={candidate.path}>
              <a
                href={BASE + candidate.path}
                aria-current={candidate.path === page ? 'page' : undefined}
                onClick={(event) => {
                  setMenuOpen(false);
                  onLinkClick(event);
                }}
              >
                {candidate.label} {candidate.path === 'approvals' ? <PendingBadge /> : null}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="content">
        <BudgetBanner />
        {entry === undefined ? (
          <>
            <h1>Not found</h1>
            <p>No page at this address.</p>
          </>
        ) : (
          <PageHost key={entry.path} entry={entry} />
        )}
      </main>
    </div>
  );
}
