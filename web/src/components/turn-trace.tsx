// A session's turns (obs.trace.search by sessionKey) and one turn's waterfall (obs.trace.get): model calls with
// latency, time to first token, tokens and cost; tool calls with duration and outcome; approval waits; runs and drives.
import { useState } from 'preact/hooks';
import { formatDuration, formatNumber, formatTime, formatUsd } from '../lib/format';
import { call, type ResultOf } from '../lib/rpc';
import { useAsync } from '../lib/use-async';
import { ErrorNotice, KeyValues, Loading, Section } from './ui';

type Waterfall = ResultOf<'obs.trace.get'>;
type Span = Waterfall['spans'][number];

const KIND_LABEL: Record<Span['kind'], string> = {
  model: 'Model',
  model_error: 'Model error',
  tool: 'Tool',
  approval: 'Approval',
  orchestrate: 'Orchestrate',
  terminal: 'Terminal',
};

function spanDetail(span: Span): string {
  switch (span.kind) {
    case 'model':
      return [
        `${formatNumber(span.inputTokens)} in / ${formatNumber(span.outputTokens)} out`,
        formatUsd(span.costUsd),
        span.ttftMs === null ? '' : `first token ${formatDuration(span.ttftMs)}`,
      ]
        .filter((part) => part !== '')
        .join(', ');
    case 'model_error':
      return span.errorKind;
    case 'tool':
      return span.errorKind ?? '';
    case 'approval':
      return [span.resolvedBy ?? '', span.reason ?? ''].filter((part) => part !== '').join(': ');
    case 'orchestrate':
      return `exit ${span.exitCode}, ${span.toolCalls} tool calls`;
    case 'terminal':
      return span.driveId;
  }
}

function isBad(outcome: string): boolean {
  return outcome === 'error' || outcome === 'denied' || outcome === 'failed';
}

export function TraceWaterfall({ trace }: { trace: Waterfall }) {
  const total = Math.max(
    1,
    trace.durationMs ?? Math.max(...trace.spans.map((s) => s.startOffsetMs + (s.durationMs ?? 0))),
  );
  return (
    <div class="stack" aria-label={`Trace ${trace.traceId}`} role="group">
      <KeyValues
        rows={[
          ['Duration', formatDuration(trace.durationMs)],
          ['Ended', trace.endReason ?? 'running'],
          ['Model calls', formatNumber(trace.totals.modelCalls)],
          ['Tool calls', `${formatNumber(trace.totals.toolCalls)} (${formatNumber(trace.totals.toolFailures)} failed)`],
          ['Tokens', formatNumber(trace.totals.inputTokens + trace.totals.outputTokens)],
          ['Cost', formatUsd(trace.totals.costUsd)],
        ]}
      />
      <ol class="waterfall" aria-label="Spans">
        {trace.spans.map((span, index) => {
          const left = Math.min(100, (span.startOffsetMs / total) * 100);
          const width = Math.max(0.5, Math.min(100 - left, ((span.durationMs ?? 0) / total) * 100));
          return (
            <li key={index} class={`span span-${span.kind}`}>
              <div class="span-text">
                <span class="span-kind">{KIND_LABEL[span.kind]}</span> <code>{span.name}</code>{' '}
                <span class={`badge ${isBad(span.outcome) ? 'bad' : 'ok'}`}>{span.outcome}</span>{' '}
                <span class="span-duration">{formatDuration(span.durationMs)}</span>
                <span class="muted"> at +{formatDuration(span.startOffsetMs)}</span>
                {spanDetail(span) === '' ? null : <span class="muted"> · {spanDetail(span)}</span>}
              </div>
              <div class="span-track" aria-hidden="true">
                <div class="span-bar" style={{ marginLeft: `${left}%`, width: `${width}%` }} />
              </div>
            </li>
          );
        })}
      </ol>
      {trace.truncated ? (
        <p class="muted">
          Showing {trace.spans.length} of {trace.spanCount} spans.
        </p>
      ) : null}
    </div>
  );
}

export function SessionTurns({ sessionKey }: { sessionKey: string }) {
  const turns = useAsync(
    () => call('obs.trace.search', { where: `sessionKey = '${sessionKey.replace(/'/g, "''")}'`, limit: 50 }),
    [sessionKey],
  );
  const [open, setOpen] = useState<string | undefined>(undefined);
  const trace = useAsync(
    () => (open === undefined ? Promise.resolve(undefined) : call('obs.trace.get', { traceId: open })),
    [open],
  );
  const rows = turns.data?.rows ?? [];
  return (
    <Section title="Turns">
      <Loading isLoading={turns.isLoading} />
      <ErrorNotice error={turns.error} />
      {turns.data !== undefined && rows.length === 0 ? <p class="muted">No turns in the last two days.</p> : null}
      <ul class="stack" style={{ listStyle: 'none', padding: 0 }}>
        {rows.map((row) => (
          <li key={row.traceId}>
            <button
              type="button"
              aria-expanded={open === row.traceId}
              onClick={() => setOpen(open === row.traceId ? undefined : row.traceId)}
            >
              Trace of the turn at {formatTime(row.startedAt)}
            </button>{' '}
            <span class="muted">{row.endReason ?? 'running'}</span>
            {open === row.traceId ? (
              <>
                <ErrorNotice error={trace.error} />
                {trace.data === undefined ? (
                  <Loading isLoading={trace.isLoading} />
                ) : (
                  <TraceWaterfall trace={trace.data} />
                )}
              </>
            ) : null}
          </li>
        ))}
      </ul>
    </Section>
  );
}
