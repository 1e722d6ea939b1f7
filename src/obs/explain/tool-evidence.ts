// Tool evidence of one session: per-tool stats, failures (newest first), the breaker timeline, offloads, rollup reconciliation.
import { CONTENT_HEURISTIC, TRAJECTORY_KIND } from '../evidence/kinds.js';
import { bool, bump, compareText, count, isRecord, str, topKey } from '../evidence/read.js';
import type { TrajectoryEvidence } from '../evidence/records.js';
import type { BreakerEntry, DivergentTool, FailureEntry, OffloadEntry, ToolStat } from './types.js';

export interface ToolEvidence {
  stats: Map<string, ToolStat>;
  /** Newest first. */
  failures: FailureEntry[];
  /** Whether every failure was classified by a content heuristic rather than by the tool itself. */
  isHeuristicOnly: boolean;
  totalCalls: number;
  breakerTimeline: BreakerEntry[];
  offloads: OffloadEntry[];
}

function errorPreview(errorKind: string, resultBytes: number, resultDigest: string, durationMs: number): string {
  const took = durationMs > 0 ? ` after ${durationMs} ms` : '';
  return `${errorKind}${took}; ${resultBytes} bytes of output, fingerprint ${resultDigest}`;
}

/** `records` must be sorted by seq. */
export function collectToolEvidence(records: readonly TrajectoryEvidence[]): ToolEvidence {
  const okCounts = new Map<string, number>();
  const failedCounts = new Map<string, number>();
  const errorKinds = new Map<string, Map<string, number>>();
  const failures: FailureEntry[] = [];
  const breakerTimeline: BreakerEntry[] = [];
  const offloads: OffloadEntry[] = [];
  let heuristicFailures = 0;
  let totalCalls = 0;

  for (const record of records) {
    const { data } = record;
    // A tool_call without a boolean `ok` is unreadable and counts nothing (a malformed row folds to zero).
    if (record.kind === TRAJECTORY_KIND.toolCall && typeof data.ok === 'boolean') {
      const toolName = str(data.toolName) ?? 'unknown';
      totalCalls += 1;
      if (data.ok === true) {
        bump(okCounts, toolName);
        continue;
      }
      bump(failedCounts, toolName);
      const errorKind = str(data.errorKind) ?? 'failed';
      const kinds = errorKinds.get(toolName) ?? new Map<string, number>();
      bump(kinds, errorKind);
      errorKinds.set(toolName, kinds);
      if (data.classifiedBy === CONTENT_HEURISTIC) heuristicFailures += 1;
      const resultDigest = str(data.resultDigest) ?? 'none';
      const resultBytes = count(data.resultBytes);
      failures.push({
        seq: record.seq,
        toolName,
        errorKind,
        resultDigest,
        resultBytes,
        errorPreview: errorPreview(errorKind, resultBytes, resultDigest, count(data.durationMs)),
      });
    } else if (record.kind === TRAJECTORY_KIND.breaker) {
      breakerTimeline.push({
        seq: record.seq,
        event: str(data.event) ?? 'unknown',
        toolName: str(data.toolName) ?? null,
      });
    } else if (record.kind === TRAJECTORY_KIND.offload) {
      offloads.push({
        seq: record.seq,
        toolName: str(data.toolName) ?? null,
        diskPathRel: str(data.diskPathRel, 256) ?? '',
        bytes: count(data.bytes),
        digest: str(data.digest) ?? null,
        resolved: bool(data.resolved) ?? false,
      });
    }
  }

  const stats = new Map<string, ToolStat>();
  const names = new Set([...okCounts.keys(), ...failedCounts.keys()]);
  for (const name of names) {
    stats.set(name, {
      ok: okCounts.get(name) ?? 0,
      failed: failedCounts.get(name) ?? 0,
      topErrorKind: topKey(errorKinds.get(name) ?? new Map()) ?? null,
    });
  }
  failures.reverse();
  return {
    stats,
    failures,
    isHeuristicOnly: failures.length > 0 && heuristicFailures === failures.length,
    totalCalls,
    breakerTimeline,
    offloads,
  };
}

export interface Reconciliation {
  present: boolean;
  reconciled: boolean;
  rollupSource: string;
  divergentTools: DivergentTool[];
}

/**
 * Compares the persisted last-execution rollup (the newest tool_rollup record, data `{tools: {name: {ok, failed}}}`)
 * with the whole-session trajectory: a rollup count above the trajectory's, or a tool the trajectory never
 * saw, makes the stats unreconciled.
 */
export function reconcileRollup(
  records: readonly TrajectoryEvidence[],
  stats: ReadonlyMap<string, ToolStat>,
): Reconciliation {
  const rollups = records.filter((record) => record.kind === TRAJECTORY_KIND.toolRollup);
  const latest = rollups.at(-1);
  if (latest === undefined) return { present: false, reconciled: true, rollupSource: 'none', divergentTools: [] };
  const tools = isRecord(latest.data.tools) ? latest.data.tools : {};
  const divergentTools: DivergentTool[] = [];
  for (const tool of Object.keys(tools).sort(compareText)) {
    const entry = tools[tool];
    const rollup = isRecord(entry) ? { ok: count(entry.ok), failed: count(entry.failed) } : { ok: 0, failed: 0 };
    const seen = stats.get(tool);
    const trajectory = { ok: seen?.ok ?? 0, failed: seen?.failed ?? 0 };
    if (seen === undefined || rollup.ok > trajectory.ok || rollup.failed > trajectory.failed) {
      divergentTools.push({ tool: tool.slice(0, 128), rollup, trajectory });
    }
  }
  return {
    present: true,
    reconciled: divergentTools.length === 0,
    rollupSource: `trajectory:${TRAJECTORY_KIND.toolRollup}#${latest.seq}`,
    divergentTools,
  };
}
