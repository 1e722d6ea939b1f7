// The signed-in token: kept in sessionStorage (gone when the tab closes), never put in the page URL.
import { signal } from '@preact/signals';

const STORAGE_KEY = 'agent-gateway.token';

function readStored(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export const token = signal<string | null>(readStored());

export function signIn(secret: string): void {
  sessionStorage.setItem(STORAGE_KEY, secret);
  token.value = secret;
}

export function signOut(): void {
  sessionStorage.removeItem(STORAGE_KEY);
  token.value = null;
}

export function authHeaders(): Record<string, string> {
  return token.value === null ? {} : { authorization: `Bearer ${token.value}` };
}

/** Why the sign-in form is showing again (a revoked token), shown above the form once. */
export const signInNotice = signal<string | undefined>(undefined);
