// Bounds an IncidentReport: array caps per depth, then (depth summary) shrinking until the JSON fits about 6 KB.
import type { ExplainDepth, IncidentReport, Truncation } from './types.js';

/** Spec Limits: depth summary is about 6 KB (about 1,500 tokens). */
export const SUMMARY_MAX_BYTES = 6144;

interface Caps {
  failures: number;
  breakerTimeline: number;
  offloads: number;
  orchestrate: number;
  orchestrateToolCalls: number;
  toolStats: number;
  divergentTools: number;
  suggestedNextSteps: number;
  spawnTree: number;
}

/** Depth full relaxes every array cap; the caps stay finite so a runaway session cannot produce an unbounded reply. */
export const DEPTH_CAPS: Record<ExplainDepth, Caps> = {
  summary: {
    failures: 5,
    breakerTimeline: 10,
    offloads: 5,
    orchestrate: 5,
    orchestrateToolCalls: 5,
    toolStats: 12,
    divergentTools: 5,
    suggestedNextSteps: 6,
    spawnTree: 10,
  },
  full: {
    failures: 500,
    breakerTimeline: 1000,
    offloads: 500,
    orchestrate: 200,
    orchestrateToolCalls: 100,
    toolStats: 500,
    divergentTools: 200,
    suggestedNextSteps: 20,
    spawnTree: 500,
  },
};

const bytesOf = (report: IncidentReport): number => Buffer.byteLength(JSON.stringify(report), 'utf8');

class Truncator {
  readonly #totals = new Map<string, number>();
  readonly #kept = new Map<string, number>();

  /** Keeps the first `keep` items, remembering the original total the first time a field is cut. */
  cut<T>(field: string, items: T[], keep: number): T[] {
    if (items.length <= keep) return items;
    if (!this.#totals.has(field)) this.#totals.set(field, items.length);
    this.#kept.set(field, keep);
    return items.slice(0, keep);
  }

  list(): Truncation[] {
    return [...this.#totals.entries()]
      .map(([field, total]) => ({ field, kept: this.#kept.get(field) ?? 0, total }))
      .sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
  }
}

/** Keeps the tools with the most failures, then the most calls, then by name; the output stays sorted by name. */
function capToolStats(report: IncidentReport, keep: number, truncator: Truncator): void {
  const entries = Object.entries(report.toolStats);
  if (entries.length <= keep) return;
  const ranked = [...entries].sort(
    ([a, x], [b, y]) => y.failed - x.failed || y.ok + y.failed - (x.ok + x.failed) || (a < b ? -1 : a > b ? 1 : 0),
  );
  const kept = new Set(truncator.cut('toolStats', ranked, keep).map(([name]) => name));
  report.toolStats = Object.fromEntries(entries.filter(([name]) => kept.has(name)));
}

function applyCaps(
  report: IncidentReport,
  caps: Caps,
  truncator: Truncator,
  existing: readonly Truncation[],
): IncidentReport {
  report.failures = truncator.cut('failures', report.failures, caps.failures);
  report.breakerTimeline = truncator.cut('breakerTimeline', report.breakerTimeline, caps.breakerTimeline);
  report.offloads = truncator.cut('offloads', report.offloads, caps.offloads);
  report.suggestedNextSteps = truncator.cut('suggestedNextSteps', report.suggestedNextSteps, caps.suggestedNextSteps);
  capToolStats(report, caps.toolStats, truncator);
  if (report.orchestrate !== undefined) {
    report.orchestrate = truncator.cut('orchestrate', report.orchestrate, caps.orchestrate).map((run) => ({
      ...run,
      toolCalls: truncator.cut(`orchestrate[${run.runId}].toolCalls`, run.toolCalls, caps.orchestrateToolCalls),
    }));
  }
  if (report.coverage !== undefined) {
    const toolStats = report.coverage.toolStats;
    toolStats.divergentTools = truncator.cut(
      'coverage.toolStats.divergentTools',
      toolStats.divergentTools,
      caps.divergentTools,
    );
  }
  if (report.spawnTree !== undefined)
    report.spawnTree.runs = truncator.cut('spawnTree.runs', report.spawnTree.runs, caps.spawnTree);
  report.truncations = [...existing, ...truncator.list()];
  return report;
}

/** Summary shrink steps, applied in order while the report is over SUMMARY_MAX_BYTES: least telling first. */
const SHRINK_STEPS: readonly Caps[] = [
  { ...DEPTH_CAPS.summary, spawnTree: 3, divergentTools: 2, orchestrateToolCalls: 2 },
  {
    ...DEPTH_CAPS.summary,
    spawnTree: 3,
    divergentTools: 2,
    orchestrateToolCalls: 2,
    breakerTimeline: 5,
    offloads: 2,
    orchestrate: 2,
  },
  {
    ...DEPTH_CAPS.summary,
    spawnTree: 1,
    divergentTools: 1,
    orchestrateToolCalls: 1,
    breakerTimeline: 2,
    offloads: 1,
    orchestrate: 1,
    failures: 3,
    toolStats: 6,
    suggestedNextSteps: 4,
  },
  {
    failures: 1,
    breakerTimeline: 1,
    offloads: 1,
    orchestrate: 1,
    orchestrateToolCalls: 0,
    toolStats: 3,
    divergentTools: 0,
    suggestedNextSteps: 2,
    spawnTree: 0,
  },
  {
    failures: 0,
    breakerTimeline: 0,
    offloads: 0,
    orchestrate: 0,
    orchestrateToolCalls: 0,
    toolStats: 1,
    divergentTools: 0,
    suggestedNextSteps: 1,
    spawnTree: 0,
  },
];

/**
 * Returns a bounded copy. `existing` truncations (the loader's row cap) are kept in front. At depth summary the
 * report is shrunk step by step until it fits; arrays only ever lose their tail (oldest failures, latest breaker
 * events), and every cut is listed in truncations[] with the kept and original counts.
 */
export function boundReport(report: IncidentReport, depth: ExplainDepth): IncidentReport {
  const existing = report.truncations;
  const bounded = applyCaps(structuredClone(report), DEPTH_CAPS[depth], new Truncator(), existing);
  if (depth === 'full' || bytesOf(bounded) <= SUMMARY_MAX_BYTES) return bounded;
  let shrunk = bounded;
  for (const caps of SHRINK_STEPS) {
    // Each step restarts from the full report so truncations[] records the original totals.
    shrunk = applyCaps(structuredClone(report), caps, new Truncator(), existing);
    if (bytesOf(shrunk) <= SUMMARY_MAX_BYTES) return shrunk;
  }
  return shrunk;
}
