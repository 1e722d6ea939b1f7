// An obs.explain IncidentReport in words: outcome, cost, timing, failures, likely root cause and next steps (the
// methods they name linked as dashboard pages).
import { formatDuration, formatNumber, formatUsd } from '../lib/format';
import type { ResultOf } from '../lib/rpc';
import { BASE, onLinkClick } from '../lib/router';
import { stepParts } from '../lib/step-links';
import { JsonDetails, KeyValues } from './ui';
import { TableExport } from './table-export';

/** What obs.explain answers: the report, or why there is none. */
type Explained = ResultOf<'obs.explain'>;
type IncidentReport = Exclude<Explained, { marker: 'session_not_found' }>;
/** A failed tool call, or a failed model call (then provider, model, status and message say what the provider answered). */
type Failure = IncidentReport['failures'][number];

const SEVERITY_TONE: Record<string, string> = { info: 'ok', ok: 'ok', warning: 'warn', error: 'bad', critical: 'bad' };

function words(code: string): string {
  return code.replace(/[_:]/g, ' ');
}

export function IncidentReportView({ report }: { report: Explained }) {
  if ('marker' in report) {
    return (
      <div class="stack">
        <p class="notice">{report.detail}</p>
        <NextSteps steps={report.suggestedNextSteps} />
      </div>
    );
  }
  const tools = Object.entries(report.toolStats);
  const steps = [...new Set([...report.likelyRootCause.suggestedNextSteps, ...report.suggestedNextSteps])];
  return (
    <article class="stack" aria-label="Incident report">
      <p>
        <span class={`badge ${SEVERITY_TONE[report.outcome.severity] ?? ''}`}>{report.outcome.severity}</span>{' '}
        <strong>{words(report.outcome.endReason)}</strong>
        {report.outcome.degraded ? ' (degraded)' : ''}
      </p>
      <p>{report.summary}</p>
      <KeyValues
        rows={[
          ['Agent', report.agentId ?? '—'],
          ['Channel', report.channel ?? '—'],
          ['Cost', formatUsd(report.cost.costUsd)],
          ['Tokens', formatNumber(report.cost.totalTokens)],
          ['Cache reads', `${Math.round(report.cost.cacheReadRatio * 100)} %`],
          ['Duration', formatDuration(report.timing.durationMs)],
          ['Turns', formatNumber(report.timing.turnCount)],
        ]}
      />
      <h3>Likely root cause</h3>
      <p>
        <code>{report.likelyRootCause.code}</code> — {report.likelyRootCause.detail}
      </p>
      <NextSteps steps={steps} />
      <h3>Tools</h3>
      {tools.length === 0 ? (
        <p class="muted">No tool calls.</p>
      ) : (
        <TableExport name="incident-tool-calls">
          <table>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">OK</th>
                <th scope="col">Failed</th>
                <th scope="col">Top error</th>
              </tr>
            </thead>
            <tbody>
              {tools.map(([name, stat]) => (
                <tr key={name}>
                  <td>{name}</td>
                  <td>{stat.ok}</td>
                  <td>{stat.failed}</td>
                  <td>{stat.topErrorKind ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableExport>
      )}
      <h3>Failures</h3>
      {report.failures.length === 0 ? (
        <p class="muted">No failures recorded.</p>
      ) : (
        <ol aria-label="Failures">
          {report.failures.map((failure, index) => (
            <li key={`${failure.seq}:${index}`}>
              <FailureLine failure={failure} />
            </li>
          ))}
        </ol>
      )}
      {report.truncations.length === 0 ? null : (
        <p class="muted">
          Shortened: {report.truncations.map((entry) => `${entry.field} (${entry.kept} of ${entry.total})`).join(', ')}
        </p>
      )}
      <JsonDetails summary="Full report (JSON)" value={report} />
    </article>
  );
}

/** A model failure names the model, the step, the provider's status and its own message; a tool failure its preview. */
function FailureLine({ failure }: { failure: Failure }) {
  if (failure.provider === undefined) {
    return (
      <>
        <code>{failure.toolName}</code> failed ({words(failure.errorKind)}): {failure.errorPreview}
      </>
    );
  }
  const status = failure.status === undefined ? '' : `, HTTP ${failure.status}`;
  return (
    <>
      Model <code>{failure.toolName}</code> failed{failure.step === undefined ? '' : ` at step ${failure.step}`} (
      {words(failure.errorKind)}
      {status}){failure.message === undefined ? '' : `: ${failure.message}`}
    </>
  );
}

function NextSteps({ steps }: { steps: string[] }) {
  if (steps.length === 0) return null;
  return (
    <>
      <h3>Next steps</h3>
      <ul aria-label="Next steps">
        {steps.map((step) => (
          <li key={step}>
            {stepParts(step).map((part, index) =>
              typeof part === 'string' ? (
                part
              ) : (
                <a key={index} href={BASE + part.page} onClick={onLinkClick}>
                  {part.text}
                </a>
              ),
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
