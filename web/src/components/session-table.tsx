// The sessions table: key, agent, channel, owner, last outcome, messages, tokens, cost and update time, downloadable as CSV.
import { TableExport } from './table-export';
import { formatNumber, formatTime, formatUsd } from '../lib/format';
import type { ResultOf } from '../lib/rpc';
import { BASE, onLinkClick, pathWith } from '../lib/router';

export type SessionRow = ResultOf<'session.list'>['sessions'][number];

const OUTCOME_TONE: Record<NonNullable<SessionRow['outcome']>, string> = {
  completed: 'ok',
  truncated: 'warn',
  budget_exceeded: 'warn',
  cancelled: 'warn',
  error: 'bad',
};

export function OutcomeBadge({ outcome }: { outcome: SessionRow['outcome'] }) {
  if (outcome === null) return <span class="muted">—</span>;
  return <span class={`badge ${OUTCOME_TONE[outcome]}`}>{outcome.replace('_', ' ')}</span>;
}

export function SessionTable({ rows, caption, name }: { rows: readonly SessionRow[]; caption: string; name: string }) {
  return (
    <TableExport name={name}>
      <table class="stacked">
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Session</th>
            <th scope="col">Agent</th>
            <th scope="col">Channel</th>
            <th scope="col">Owner</th>
            <th scope="col">Outcome</th>
            <th scope="col">Messages</th>
            <th scope="col">Tokens</th>
            <th scope="col">Cost</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((session) => (
            <tr key={session.sessionKey}>
              <td class="wrap" data-label="Session">
                <a href={BASE + pathWith('sessions', { key: session.sessionKey })} onClick={onLinkClick}>
                  {session.sessionKey}
                </a>
              </td>
              <td data-label="Agent">{session.agentId}</td>
              <td data-label="Channel">{session.channelId ?? '—'}</td>
              <td class="wrap" data-label="Owner">
                {session.ownerId ?? <span class="muted">admins</span>}
              </td>
              <td data-label="Outcome">
                <OutcomeBadge outcome={session.outcome} />
              </td>
              <td data-label="Messages">{formatNumber(session.messageCount)}</td>
              <td data-label="Tokens">{formatNumber(session.tokens)}</td>
              <td data-label="Cost">{formatUsd(session.costUsd)}</td>
              <td data-label="Updated">{formatTime(session.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableExport>
  );
}
