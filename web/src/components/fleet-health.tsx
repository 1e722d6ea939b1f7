// Fleet health over a chosen window: degraded sessions, the likely root cause and the findings, in words.
import { useState } from 'preact/hooks';
import { formatNumber, formatUsd } from '../lib/format';
import { call } from '../lib/rpc';
import { useAsync } from '../lib/use-async';
import { ErrorNotice, JsonDetails, KeyValues, Loading, Section } from './ui';

const WINDOWS = [1, 24, 168] as const;

export function FleetHealthView() {
  const [hours, setHours] = useState<number>(24);
  const report = useAsync(() => call('obs.fleet.health', { sinceHours: hours }), [hours]);
  const data = report.data;
  return (
    <Section
      title="Fleet health"
      actions={
        <>
          <label for="fleet-window">Window</label>
          <select id="fleet-window" value={hours} onChange={(event) => setHours(Number(event.currentTarget.value))}>
            {WINDOWS.map((value) => (
              <option key={value} value={value}>
                last {value} h
              </option>
            ))}
          </select>
        </>
      }
    >
      <Loading isLoading={report.isLoading} />
      <ErrorNotice error={report.error} />
      {data === undefined ? null : (
        <div class="stack">
          <KeyValues
            rows={[
              ['Sessions', formatNumber(data.sessions.total)],
              [
                'Degraded',
                `${formatNumber(data.sessions.degraded)} (${Math.round(data.sessions.degradedRate * 100)} %)`,
              ],
              ['Breaker trips', formatNumber(data.breakerTripTotal)],
              ['Cost', formatUsd(data.cost.costUsd)],
              ['Tokens', formatNumber(data.cost.totalTokens)],
            ]}
          />
          <p>
            Likely root cause: <code>{data.likelyRootCause.code}</code> — {data.likelyRootCause.detail}
          </p>
          <h3>Findings</h3>
          {data.findings.length === 0 ? (
            <p class="muted">No findings.</p>
          ) : (
            <ul>
              {data.findings.map((finding) => (
                <li key={finding.code}>
                  <span
                    class={`badge ${finding.severity === 'error' ? 'bad' : finding.severity === 'warning' ? 'warn' : ''}`}
                  >
                    {finding.severity}
                  </span>{' '}
                  <code>{finding.code}</code> ×{finding.count}: {finding.detail}{' '}
                  <span class="muted">{finding.hint}</span>
                </li>
              ))}
            </ul>
          )}
          {data.suggestedNextSteps.length === 0 ? null : (
            <>
              <h3>Next steps</h3>
              <ul>
                {data.suggestedNextSteps.map((step) => (
                  <li key={step}>{step}</li>
                ))}
              </ul>
            </>
          )}
          <JsonDetails summary="Full report (JSON)" value={data} />
        </div>
      )}
    </Section>
  );
}
