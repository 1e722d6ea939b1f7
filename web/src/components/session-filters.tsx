// The session list's filters, kept in the address: agent, kind, channel, last outcome and an updated-at date range.
import { useState } from 'preact/hooks';
import type { ParamsOf } from '../lib/rpc';
import { listAgents } from '../lib/transcript';
import { useAsync } from '../lib/use-async';

export const KINDS = ['all', 'dm', 'group', 'sub-agent'] as const;
export const OUTCOMES = ['completed', 'truncated', 'error', 'budget_exceeded', 'cancelled'] as const;
const DAY_MS = 86_400_000;

export interface SessionFilterValues {
  agent: string;
  kind: (typeof KINDS)[number];
  channel: string;
  outcome: (typeof OUTCOMES)[number] | '';
  /** YYYY-MM-DD, local days, both included; '' for open. */
  from: string;
  to: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The filters the address names; a value the server does not know (a hand-edited address) is left open. */
export function readFilters(query: URLSearchParams): SessionFilterValues {
  const date = (name: string) => {
    const value = query.get(name) ?? '';
    return DATE.test(value) ? value : '';
  };
  return {
    agent: query.get('agent') ?? '',
    kind: KINDS.find((value) => value === query.get('kind')) ?? 'all',
    channel: query.get('channel') ?? '',
    outcome: OUTCOMES.find((value) => value === query.get('outcome')) ?? '',
    from: date('from'),
    to: date('to'),
  };
}

/** Local midnight of a YYYY-MM-DD day, in epoch ms. */
function dayStart(day: string): number {
  return new Date(`${day}T00:00:00`).getTime();
}

/** The session.list params of the filters. */
export function listParams(filters: SessionFilterValues): Partial<ParamsOf<'session.list'>> {
  return {
    kind: filters.kind,
    ...(filters.agent === '' ? {} : { agentId: filters.agent }),
    ...(filters.channel === '' ? {} : { channelId: filters.channel }),
    ...(filters.outcome === '' ? {} : { outcome: filters.outcome }),
    ...(filters.from === '' ? {} : { fromMs: dayStart(filters.from) }),
    ...(filters.to === '' ? {} : { toMs: dayStart(filters.to) + DAY_MS - 1 }),
  };
}

export function SessionFilters({
  filters,
  onChange,
}: {
  filters: SessionFilterValues;
  onChange: (name: keyof SessionFilterValues, value: string) => void;
}) {
  const agents = useAsync(listAgents, []);
  // The channel box applies on Enter or leaving it, not on each key.
  const [channel, setChannel] = useState(filters.channel);
  return (
    <form
      class="row filters"
      aria-label="Filters"
      onSubmit={(event) => {
        event.preventDefault();
        onChange('channel', channel.trim());
      }}
    >
      <label for="filter-agent">Agent</label>
      <select
        id="filter-agent"
        value={filters.agent}
        onChange={(event) => onChange('agent', event.currentTarget.value)}
      >
        <option value="">All agents</option>
        {(agents.data ?? []).map((agent) => (
          <option key={agent.id} value={agent.id}>
            {agent.id}
          </option>
        ))}
      </select>
      <label for="filter-kind">Kind</label>
      <select id="filter-kind" value={filters.kind} onChange={(event) => onChange('kind', event.currentTarget.value)}>
        {KINDS.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
      <label for="filter-channel">Channel</label>
      <input
        id="filter-channel"
        value={channel}
        size={10}
        maxLength={256}
        onInput={(event) => setChannel(event.currentTarget.value)}
        onBlur={() => channel.trim() !== filters.channel && onChange('channel', channel.trim())}
      />
      <label for="filter-outcome">Outcome</label>
      <select
        id="filter-outcome"
        value={filters.outcome}
        onChange={(event) => onChange('outcome', event.currentTarget.value)}
      >
        <option value="">Any outcome</option>
        {OUTCOMES.map((value) => (
          <option key={value} value={value}>
            {value.replace('_', ' ')}
          </option>
        ))}
      </select>
      <label for="filter-from">From</label>
      <input
        id="filter-from"
        type="date"
        value={filters.from}
        onChange={(event) => onChange('from', event.currentTarget.value)}
      />
      <label for="filter-to">To</label>
      <input
        id="filter-to"
        type="date"
        value={filters.to}
        onChange={(event) => onChange('to', event.currentTarget.value)}
      />
    </form>
  );
}
