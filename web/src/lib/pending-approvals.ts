// How many tool calls wait for an operator, for the navigation's badge: read once, then again on each approval event.
import { signal } from '@preact/signals';
import { subscribeEvents } from './live-events';
import { call, onReconnect } from './rpc';

/** The pending count; undefined while unknown or when this token may not read approvals (no badge then). */
export const pendingApprovals = signal<number | undefined>(undefined);

let latest = 0;

async function refresh(): Promise<void> {
  // Reads may answer out of order: only the newest one's count is shown.
  const asked = ++latest;
  try {
    const { requests } = await call('admin.approval.pending');
    if (asked === latest) pendingApprovals.value = requests.length;
  } catch {
    if (asked === latest) pendingApprovals.value = undefined;
  }
}

/** Keeps `pendingApprovals` current while signed in; the returned function stops. */
export function trackPendingApprovals(): () => void {
  void refresh();
  const unsubscribe = subscribeEvents((event) => {
    if (event.name === 'approval:requested' || event.name === 'approval:resolved') void refresh();
  });
  const unhook = onReconnect(() => void refresh());
  return () => {
    unsubscribe();
    unhook();
    pendingApprovals.value = undefined;
  };
}
