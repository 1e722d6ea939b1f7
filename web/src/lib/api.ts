// REST calls to /api with the signed-in token in the Authorization header.
import { authHeaders, signInNotice, signOut } from './auth';
import { errorOf } from './sse';

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const response = await fetch(path, { headers: authHeaders(), ...(signal === undefined ? {} : { signal }) });
  if (response.status === 401) {
    // The token stopped working (revoked or rotated elsewhere): back to the sign-in form, as the WebSocket's 4001 does.
    signInNotice.value = 'The gateway no longer accepts this token (revoked or rotated). Sign in again.';
    signOut();
  }
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

/** Unauthenticated reachability check used by sign-in and Overview. */
export async function health(): Promise<{ status: string; timestamp: string }> {
  return getJson('/api/health');
}
