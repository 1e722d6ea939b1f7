// The fleet autonomy block: durable run counts plus killed, resumed and breaker signals, and the worst root run.
import { SIGNAL_KIND } from '../evidence/kinds.js';
import { compareText, count, round, str } from '../evidence/read.js';
import type { HealthSignalEvidence, RunEvidence } from '../evidence/records.js';
import type { AutonomyBlock, Finding } from './types.js';

/** Worst-run severity order of the spec, most severe first. */
const WORST_ORDER = ['orphaned', 'denial-breaker', 'killed', 'revoked'] as const;
type Incident = (typeof WORST_ORDER)[number];

const rootOf = (signal: HealthSignalEvidence): string | undefined => signal.rootRunId ?? str(signal.data.rootRunId);

/** The root with the most severe incident; ties go to more incidents of that kind, then to the smaller id. */
function worstRoot(incidents: readonly { root: string; incident: Incident }[]): string | undefined {
  const tally = new Map<string, { rank: number; root: string; n: number }>();
  for (const { root, incident } of incidents) {
    const rank = WORST_ORDER.indexOf(incident);
    const key = `${rank}\u0000${root}`;
    const entry = tally.get(key) ?? { rank, root, n: 0 };
    entry.n += 1;
    tally.set(key, entry);
  }
  const ranked = [...tally.values()].sort((a, b) => a.rank - b.rank || b.n - a.n || compareText(a.root, b.root));
  return ranked[0]?.root;
}

/**
 * Absent (undefined) when no durable run store is wired. Degraded = orphaned + revoked, read from the run table's
 * status; killed and resumed come from their own health signals; denialBreakerTrips only from its own signal,
 * because such an abort is never a session end reason.
 */
export function autonomyBlock(
  runs: readonly RunEvidence[] | undefined,
  signals: readonly HealthSignalEvidence[],
): AutonomyBlock | undefined {
  if (runs === undefined) return undefined;
  const incidents: { root: string; incident: Incident }[] = [];
  let orphaned = 0;
  let revoked = 0;
  for (const run of runs) {
    if (run.status === 'orphaned') {
      orphaned += 1;
      incidents.push({ root: run.rootRunId, incident: 'orphaned' });
    } else if (run.status === 'revoked') {
      revoked += 1;
      incidents.push({ root: run.rootRunId, incident: 'revoked' });
    }
  }
  const counts = { killed: 0, resumed: 0, breakerTrips: 0, denialBreakerTrips: 0, budgetBreaches: 0 };
  for (const signal of signals) {
    const root = rootOf(signal);
    if (signal.kind === SIGNAL_KIND.autonomyKilled) {
      counts.killed += 1;
      if (root !== undefined) incidents.push({ root, incident: 'killed' });
    } else if (signal.kind === SIGNAL_KIND.autonomyDenialBreaker) {
      counts.denialBreakerTrips += 1;
      if (root !== undefined) incidents.push({ root, incident: 'denial-breaker' });
    } else if (signal.kind === SIGNAL_KIND.autonomyResumed) counts.resumed += 1;
    else if (signal.kind === SIGNAL_KIND.autonomyBreakerTrip) counts.breakerTrips += 1;
    else if (signal.kind === SIGNAL_KIND.autonomyBudgetBreach) counts.budgetBreaches += 1;
  }
  const degraded = orphaned + revoked;
  const worst = worstRoot(incidents);
  return {
    runs: { total: runs.length, degraded, degradedRate: runs.length === 0 ? 0 : round(degraded / runs.length, 4) },
    orphaned,
    resumed: counts.resumed,
    revoked,
    killed: counts.killed,
    breakerTrips: counts.breakerTrips,
    denialBreakerTrips: counts.denialBreakerTrips,
    budgetBreaches: counts.budgetBreaches,
    costUsd: round(
      runs.reduce((sum, run) => sum + count(run.costUsd), 0),
      6,
    ),
    ...(worst === undefined ? {} : { worstRootRunId: worst }),
  };
}

export function autonomyFindings(block: AutonomyBlock | undefined): Finding[] {
  if (block === undefined) return [];
  const findings: Finding[] = [];
  if (block.orphaned > 0) {
    findings.push({
      code: 'durable_orphaned',
      severity: 'error',
      count: block.orphaned,
      detail: `${block.orphaned} durable run(s) were orphaned by a gateway stop.`,
      hint: 'Re-run the orphaned tasks (session.run_status shows them); check why the gateway stopped.',
    });
  }
  if (block.revoked > 0) {
    findings.push({
      code: 'autonomy_revoked',
      severity: 'warning',
      count: block.revoked,
      detail: `${block.revoked} autonomous run(s) were revoked.`,
      hint: 'Review the revocations in the audit log (obs.audit.query).',
    });
  }
  if (block.killed > 0) {
    findings.push({
      code: 'autonomy_killed',
      severity: 'warning',
      count: block.killed,
      detail: `${block.killed} autonomous run(s) were killed.`,
      hint: 'Check who killed the runs and why (obs.audit.query).',
    });
  }
  if (block.denialBreakerTrips > 0) {
    findings.push({
      code: 'autonomy_denial_breaker',
      severity: 'warning',
      count: block.denialBreakerTrips,
      detail: `The denial breaker aborted ${block.denialBreakerTrips} autonomous run(s) after repeated denied actions.`,
      hint: "Review the denied actions; grant the capability or narrow the agent's task.",
    });
  }
  return findings;
}
