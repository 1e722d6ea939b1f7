// The tabs of one owner's browser context: a stable id per page, which one is active, and each tab's bounded console
// ring. Another owner's tab id is simply not in the registry, so it answers not_found like an id that never existed.
import type { ConsoleMessage, Page } from 'playwright-core';
import { tabNotFound } from '../errors.js';

export interface ConsoleEntry {
  level: string;
  text: string;
  /** Epoch milliseconds. */
  timestamp: number;
}

export interface Tab {
  id: string;
  page: Page;
  console: ConsoleEntry[];
}

export interface TabRegistryOptions {
  consoleEntriesPerTab: number;
  now: () => number;
  /** Fresh random ids (`tab-<12 hex>`), which say nothing about how many tabs other owners opened. */
  nextId: () => string;
}

export interface TabRegistry {
  /** Registers a page (opened by us or by the page itself); the first one becomes active. */
  add(page: Page): Tab;
  get(tabId: string, param?: string): Tab;
  /** The active tab, or undefined when none is open. */
  active(): Tab | undefined;
  focus(tabId: string): Tab;
  /** Forgets a closed tab at once (its `close` event does the same for tabs the page closes itself). */
  remove(tabId: string): void;
  list(): Tab[];
  size(): number;
}

/** Appends to a tab's ring (console messages and uncaught page errors), dropping the oldest beyond `limit`. */
function pushBounded(ring: ConsoleEntry[], entry: ConsoleEntry, limit: number): void {
  ring.push(entry);
  if (ring.length > limit) ring.splice(0, ring.length - limit);
}

export function createTabRegistry(options: TabRegistryOptions): TabRegistry {
  const tabs = new Map<string, Tab>();
  const byPage = new Map<Page, Tab>();
  let activeId: string | undefined;

  function remove(tab: Tab): void {
    tabs.delete(tab.id);
    byPage.delete(tab.page);
    if (activeId === tab.id) activeId = [...tabs.keys()].at(-1);
  }

  return {
    add(page) {
      const existing = byPage.get(page);
      if (existing !== undefined) return existing;
      const tab: Tab = { id: options.nextId(), page, console: [] };
      tabs.set(tab.id, tab);
      byPage.set(page, tab);
      activeId ??= tab.id;
      const record = (level: string, text: string) =>
        pushBounded(tab.console, { level, text, timestamp: options.now() }, options.consoleEntriesPerTab);
      page.on('console', (message: ConsoleMessage) => record(message.type(), message.text()));
      page.on('pageerror', (error: Error) => record('error', error.message));
      page.on('close', () => remove(tab));
      return tab;
    },
    get(tabId, param = 'tabId') {
      const tab = tabs.get(tabId);
      if (tab === undefined) throw tabNotFound(tabId, param);
      return tab;
    },
    active: () => (activeId === undefined ? undefined : tabs.get(activeId)),
    focus(tabId) {
      const tab = tabs.get(tabId);
      if (tab === undefined) throw tabNotFound(tabId);
      activeId = tab.id;
      return tab;
    },
    remove(tabId) {
      const tab = tabs.get(tabId);
      if (tab !== undefined) remove(tab);
    },
    list: () => [...tabs.values()],
    size: () => tabs.size,
  };
}
