// Fleet findings read from health signals: config posture, voice health, pipeline authoring (and its gate),
// orchestrate and cron wake-gate efficiency, memory lifecycle sweeps, and recurring health signals.
import { AUTHORING_TIERS, SIGNAL_KIND } from '../evidence/kinds.js';
import { bump, compareText, count, isRecord, oneOf, round, str, topKey } from '../evidence/read.js';
import type { HealthSignalEvidence } from '../evidence/records.js';
import type { CronGateCounts, CronWakeGateFleetBlock, Finding } from './types.js';

/** Spec Limits: the authoring gate needs 20 small-tier invocations and a 15-point validity gap. */
export const AUTHORING_GATE_MIN_INVOCATIONS = 20;
export const AUTHORING_GATE_MIN_GAP_POINTS = 15;
/** A warning-or-worse health signal code seen this often in the window is a recurring signal. */
export const RECURRENCE_MIN = 3;

const ofKind = (signals: readonly HealthSignalEvidence[], kind: string) =>
  signals.filter((signal) => signal.kind === kind);
const percent = (part: number, whole: number) => (whole === 0 ? '0.0' : ((part / whole) * 100).toFixed(1));

/**
 * config_posture:served_below_configured from the latest boot posture row only. Row data:
 * `{providers: [{provider, configuredWindowTokens, servedWindowTokens}]}`; a malformed row or entry counts zero.
 */
export function postureFinding(latest: HealthSignalEvidence | undefined): Finding | undefined {
  const entries = latest !== undefined && Array.isArray(latest.data.providers) ? latest.data.providers : [];
  const below = new Set<string>();
  for (const entry of entries) {
    if (!isRecord(entry)) continue;
    const configured = count(entry.configuredWindowTokens);
    const served = count(entry.servedWindowTokens);
    const provider = str(entry.provider);
    if (provider !== undefined && configured > 0 && served > 0 && served < configured) below.add(provider);
  }
  if (below.size === 0) return undefined;
  const names = [...below].sort(compareText).slice(0, 5).join(', ');
  return {
    code: 'config_posture:served_below_configured',
    severity: 'warning',
    count: below.size,
    detail: `${below.size} provider(s) serve a smaller context window than configured at the latest boot: ${names}.`,
    hint: "Lower the configured contextWindow to what the server serves, or raise the server's context length.",
  };
}

/** voice_health: degraded (failed) voice turns and their dominant errorKind; a malformed row counts zero. */
export function voiceFinding(signals: readonly HealthSignalEvidence[]): Finding | undefined {
  const kinds = new Map<string, number>();
  let degraded = 0;
  for (const signal of ofKind(signals, SIGNAL_KIND.voice)) {
    if (signal.data.outcome !== 'failed') continue;
    degraded += 1;
    bump(kinds, str(signal.data.errorKind) ?? 'unknown');
  }
  if (degraded === 0) return undefined;
  const dominant = topKey(kinds) ?? 'unknown';
  return {
    code: 'voice_health',
    severity: 'warning',
    count: degraded,
    detail: `${degraded} degraded voice turn(s); dominant errorKind ${dominant}.`,
    hint:
      dominant === 'no_keyless_engine'
        ? 'Install a keyless speech engine or configure a keyed provider.'
        : 'Check the speech provider configuration and credentials.',
  };
}

interface TierCounts {
  total: number;
  valid: number;
}

function authoringCounts(signals: readonly HealthSignalEvidence[]): Map<string, TierCounts> {
  const tiers = new Map<string, TierCounts>(AUTHORING_TIERS.map((tier) => [tier, { total: 0, valid: 0 }]));
  for (const signal of ofKind(signals, SIGNAL_KIND.pipelineAuthored)) {
    const tier = oneOf(signal.data.tier, AUTHORING_TIERS);
    if (tier === undefined) continue;
    const counts = tiers.get(tier) as TierCounts;
    counts.total += 1;
    if (signal.data.valid === true) counts.valid += 1;
  }
  return tiers;
}

/** pipeline_authoring: small- and nano-tier authorings that failed validation over each tier's total. */
export function authoringFinding(signals: readonly HealthSignalEvidence[]): Finding | undefined {
  const tiers = authoringCounts(signals);
  const parts: string[] = [];
  let failed = 0;
  for (const tier of ['small', 'nano'] as const) {
    const { total, valid } = tiers.get(tier) as TierCounts;
    if (total === 0 || total === valid) continue;
    failed += total - valid;
    parts.push(`${tier}: ${total - valid} of ${total} failed validation (${percent(total - valid, total)}%)`);
  }
  if (failed === 0) return undefined;
  return {
    code: 'pipeline_authoring',
    severity: 'warning',
    count: failed,
    detail: `${parts.join('; ')}.`,
    hint: 'Author pipelines with a frontier model, or see pipelineAuthoringGate.',
  };
}

/**
 * Deterministic from the windowed authoring rows. Small tier means small and nano. buildAuthor holds only with at
 * least 20 small-tier invocations and small-tier validity at least 15 points below frontier (integer arithmetic,
 * so 15.0 points exactly passes).
 */
export function authoringGate(signals: readonly HealthSignalEvidence[]): { buildAuthor: boolean; reason: string } {
  const tiers = authoringCounts(signals);
  const frontier = tiers.get('frontier') as TierCounts;
  const small = tiers.get('small') as TierCounts;
  const nano = tiers.get('nano') as TierCounts;
  const smallTotal = small.total + nano.total;
  const smallValid = small.valid + nano.valid;
  if (smallTotal === 0 && frontier.total === 0)
    return { buildAuthor: false, reason: 'insufficient_telemetry: no pipeline authoring rows in the window' };
  if (smallTotal < AUTHORING_GATE_MIN_INVOCATIONS) {
    return {
      buildAuthor: false,
      reason: `insufficient_telemetry: ${smallTotal} small-tier invocations in the window, ${AUTHORING_GATE_MIN_INVOCATIONS} needed`,
    };
  }
  if (frontier.total === 0)
    return { buildAuthor: false, reason: 'insufficient_telemetry: no frontier-tier authorings to compare with' };
  const gapTimesTotals = 100 * (frontier.valid * smallTotal - smallValid * frontier.total);
  const isWideGap = gapTimesTotals >= AUTHORING_GATE_MIN_GAP_POINTS * frontier.total * smallTotal;
  const numbers = `small-tier validity ${percent(smallValid, smallTotal)}% vs frontier ${percent(frontier.valid, frontier.total)}% over ${smallTotal} small-tier invocations`;
  return isWideGap
    ? { buildAuthor: true, reason: `gap_at_least_${AUTHORING_GATE_MIN_GAP_POINTS}_points: ${numbers}` }
    : { buildAuthor: false, reason: `gap_below_${AUTHORING_GATE_MIN_GAP_POINTS}_points: ${numbers}` };
}

/** orchestrate_efficiency (info): run count and summed estimated tokens saved. */
export function orchestrateFinding(signals: readonly HealthSignalEvidence[]): Finding | undefined {
  const runs = ofKind(signals, SIGNAL_KIND.orchestrateRunSummary);
  if (runs.length === 0) return undefined;
  const saved = runs.reduce((sum, run) => sum + count(run.data.estSavedTokens), 0);
  const failed = runs.filter((run) => run.data.exitCode !== 0).length;
  return {
    code: 'orchestrate_efficiency',
    severity: 'info',
    count: runs.length,
    detail: `${runs.length} orchestrate run(s) saved an estimated ${saved} tokens; ${failed} failed.`,
    hint: 'Informational: orchestrate scripts batch tool calls outside the model loop.',
  };
}

function gateCounts(fires: readonly HealthSignalEvidence[]): CronGateCounts {
  const skipped = fires.filter((fire) => fire.data.wake === false).length;
  const failedOpen = fires.filter((fire) => fire.data.failedOpen === true).length;
  return {
    fires: fires.length,
    skipped,
    skipRate: fires.length === 0 ? 0 : round(skipped / fires.length, 4),
    failedOpen,
    failOpenRate: fires.length === 0 ? 0 : round(failedOpen / fires.length, 4),
    turnsSaved: fires.reduce((sum, fire) => sum + count(fire.data.estTurnsSaved), 0),
    toolCalls: fires.reduce((sum, fire) => sum + count(fire.data.toolCalls), 0),
  };
}

/** The cronWakeGate block; absent when no gated fire ran in the window. */
export function cronWakeGate(signals: readonly HealthSignalEvidence[]): CronWakeGateFleetBlock | undefined {
  const fires = ofKind(signals, SIGNAL_KIND.cronWakeGate);
  if (fires.length === 0) return undefined;
  const total = gateCounts(fires);
  const agents = [...new Set(fires.map((fire) => fire.agentId ?? 'unknown'))].sort(compareText);
  return {
    fires: {
      total: total.fires,
      skipped: total.skipped,
      skipRate: total.skipRate,
      failedOpen: total.failedOpen,
      failOpenRate: total.failOpenRate,
    },
    turnsSaved: total.turnsSaved,
    toolCalls: total.toolCalls,
    perAgent: agents.map((agentId) => ({
      agentId,
      ...gateCounts(fires.filter((fire) => (fire.agentId ?? 'unknown') === agentId)),
    })),
  };
}

export function cronFinding(block: CronWakeGateFleetBlock | undefined): Finding | undefined {
  if (block === undefined) return undefined;
  const { fires } = block;
  return {
    code: 'cron_wake_gate_efficiency',
    severity: fires.failedOpen > 0 ? 'warning' : 'info',
    count: fires.total,
    detail: `${fires.total} gated fire(s): ${fires.skipped} skipped (${percent(fires.skipped, fires.total)}%), ${fires.failedOpen} failed open, ${block.turnsSaved} turn(s) saved.`,
    hint:
      fires.failedOpen > 0
        ? 'A failed-open gate woke the model anyway: check the gate tool calls (cron.runs).'
        : 'Informational: skipped fires saved model turns.',
  };
}

/** memory_lifecycle (info): sweep count plus summed evicted and demoted memories. */
export function memoryLifecycleFinding(signals: readonly HealthSignalEvidence[]): Finding | undefined {
  const sweeps = ofKind(signals, SIGNAL_KIND.memoryLifecycle);
  if (sweeps.length === 0) return undefined;
  const evicted = sweeps.reduce((sum, sweep) => sum + count(sweep.data.evicted), 0);
  const demoted = sweeps.reduce((sum, sweep) => sum + count(sweep.data.demoted), 0);
  return {
    code: 'memory_lifecycle',
    severity: 'info',
    count: sweeps.length,
    detail: `${sweeps.length} lifecycle sweep(s): ${evicted} evicted, ${demoted} demoted.`,
    hint: 'Informational: a high eviction count can explain recall misses.',
  };
}

/**
 * fleet_recurring_health_signal: one finding per `health` signal code seen RECURRENCE_MIN times or more at warning
 * or error severity. session_rebase continuations are ingested at info severity, so they never count.
 */
export function recurringFindings(signals: readonly HealthSignalEvidence[]): Finding[] {
  const byCode = new Map<string, { count: number; isError: boolean }>();
  for (const signal of signals) {
    if (signal.kind !== SIGNAL_KIND.health || (signal.severity !== 'warning' && signal.severity !== 'error')) continue;
    const code = str(signal.data.code) ?? 'unknown';
    const entry = byCode.get(code) ?? { count: 0, isError: false };
    entry.count += 1;
    entry.isError ||= signal.severity === 'error';
    byCode.set(code, entry);
  }
  return [...byCode.entries()]
    .filter(([, entry]) => entry.count >= RECURRENCE_MIN)
    .map(([code, entry]) => ({
      code: 'fleet_recurring_health_signal',
      severity: entry.isError ? 'error' : 'warning',
      count: entry.count,
      detail: `Health signal ${code} recurred ${entry.count} times in the window.`,
      hint: `Investigate ${code}: obs.diagnostics and the audit log carry its events.`,
    }));
}

/** The `health` signal code prefix of an MCP server's failure (src/mcp records `mcp_unavailable:<server>`). */
export const MCP_UNAVAILABLE_CODE_PREFIX = 'mcp_unavailable:';

/** mcp_unavailable: MCP servers that failed (could not be reached, or dropped) in the window, with how often. */
export function mcpUnavailableFinding(signals: readonly HealthSignalEvidence[]): Finding | undefined {
  const servers = new Map<string, number>();
  for (const signal of ofKind(signals, SIGNAL_KIND.health)) {
    const code = str(signal.data.code);
    if (code?.startsWith(MCP_UNAVAILABLE_CODE_PREFIX) === true)
      bump(servers, code.slice(MCP_UNAVAILABLE_CODE_PREFIX.length));
  }
  if (servers.size === 0) return undefined;
  const failures = [...servers.values()].reduce((sum, n) => sum + n, 0);
  const names = [...servers.keys()].sort(compareText).slice(0, 5).join(', ');
  return {
    code: 'mcp_unavailable',
    severity: 'warning',
    count: failures,
    detail: `${failures} failure(s) of ${servers.size} MCP server(s) in the window: ${names}.`,
    hint: 'Check mcp.servers (mcp.servers.list shows the last error); agents listing a failed server get a tool that fails with mcp_unavailable.',
  };
}
