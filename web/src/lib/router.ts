// A tiny history-API router for the pages under /app/: the path after /app/ picks the page, the query carries its state.
import { signal } from '@preact/signals';

export const BASE = '/app/';

export interface Route {
  /** First path segment after /app/ ('' for the overview). */
  page: string;
  query: URLSearchParams;
}

function current(): Route {
  const rest = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '';
  return { page: rest.split('/')[0] ?? '', query: new URLSearchParams(location.search) };
}

export const route = signal<Route>(current());

/** False until the first in-app navigation: a fresh load keeps focus at the top (skip link first), later ones move it. */
export let hasNavigated = false;

addEventListener('popstate', () => {
  hasNavigated = true;
  route.value = current();
});

/** Goes to `/app/<path>`; `replace` keeps the history entry (for filter changes). */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const url = BASE + path.replace(/^\//, '');
  if (options.replace !== true) hasNavigated = true;
  if (options.replace === true) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  route.value = current();
}

/** Builds `page?query` from a record, dropping empty values. */
export function pathWith(page: string, params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, value);
  const text = search.toString();
  return text === '' ? page : `${page}?${text}`;
}

/** Click handler for in-app links: plain clicks navigate without a reload, modified clicks keep browser behaviour. */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return;
  const anchor = event.currentTarget;
  if (!(anchor instanceof HTMLAnchorElement)) return;
  const url = new URL(anchor.href);
  if (url.origin !== location.origin || !url.pathname.startsWith(BASE)) return;
  event.preventDefault();
  navigate(url.pathname.slice(BASE.length) + url.search);
}
