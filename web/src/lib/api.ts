// REST calls to /api with the signed-in token in the Authorization header.
import { authHeaders } from './auth';
import { errorOf } from './sse';

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const response = await fetch(path, { headers: authHeaders(), ...(signal === undefined ? {} : { signal }) });
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

/** Unauthenticated reachability check used by sign-in and Overview. */
export async function health(): Promise<{ status: string; timestamp: string }> {
  return getJson('/api/health');
}
