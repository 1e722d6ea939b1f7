// Light, dark or the system's choice (prefers-color-scheme), remembered in localStorage and set on <html data-theme>.
import { signal } from '@preact/signals';

export type ThemeChoice = 'system' | 'light' | 'dark';
const STORAGE_KEY = 'agent-gateway.theme';

function stored(): ThemeChoice {
  const value = localStorage.getItem(STORAGE_KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

export const theme = signal<ThemeChoice>(stored());

export function applyTheme(choice: ThemeChoice): void {
  theme.value = choice;
  if (choice === 'system') {
    localStorage.removeItem(STORAGE_KEY);
    delete document.documentElement.dataset.theme;
  } else {
    localStorage.setItem(STORAGE_KEY, choice);
    document.documentElement.dataset.theme = choice;
  }
}

/** Whether the page currently renders dark (for charts, which draw with explicit colours). */
export function isDark(): boolean {
  const choice = theme.value;
  if (choice !== 'system') return choice === 'dark';
  return matchMedia('(prefers-color-scheme: dark)').matches;
}

export function nextTheme(choice: ThemeChoice): ThemeChoice {
  return choice === 'system' ? 'dark' : choice === 'dark' ? 'light' : 'system';
}
