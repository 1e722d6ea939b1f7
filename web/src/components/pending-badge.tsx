// The count of tool calls waiting for a decision, shown beside the Approvals link and the phone menu button.
import { pendingApprovals } from '../lib/pending-approvals';

export function PendingBadge() {
  const count = pendingApprovals.value;
  if (count === undefined || count === 0) return null;
  return (
    <span class="badge warn nav-count">
      {count}
      <span class="sr-only"> waiting</span>
    </span>
  );
}
