// The run spawn tree of a session (spec obs.explain rule 3): the durable runs sharing its root, with their depth.
import { compareText } from '../evidence/read.js';
import type { RunEvidence } from '../evidence/records.js';
import type { SpawnTreeEntry } from './types.js';

/** The root is the session's indexed rootRunId, else the root of a run that executed in the session. */
export function spawnTree(
  runs: readonly RunEvidence[],
  sessionKey: string,
  indexedRoot: string | null,
): { rootRunId: string; runs: SpawnTreeEntry[] } | undefined {
  const rootRunId =
    indexedRoot ??
    [...runs]
      .sort((a, b) => a.startedAt - b.startedAt || compareText(a.runId, b.runId))
      .find((run) => run.sessionKey === sessionKey || run.parentKey === sessionKey)?.rootRunId;
  if (rootRunId === undefined) return undefined;
  const tree = runs.filter((run) => run.rootRunId === rootRunId);
  if (tree.length === 0) return undefined;
  const bySession = new Map(tree.map((run) => [run.sessionKey, run]));
  const depthOf = (run: RunEvidence): number => {
    let depth = 0;
    let parent = run.parentKey === null ? undefined : bySession.get(run.parentKey);
    // Bounded walk: a malformed table with a parent cycle cannot loop forever.
    while (parent !== undefined && depth < tree.length) {
      depth += 1;
      parent = parent.parentKey === null ? undefined : bySession.get(parent.parentKey);
    }
    return depth;
  };
  const entries = tree.map((run) => ({
    entry: {
      runId: run.runId,
      parentKey: run.parentKey,
      sessionKey: run.sessionKey,
      agentId: run.agentId,
      status: run.status,
      depth: depthOf(run),
    },
    startedAt: run.startedAt,
  }));
  entries.sort(
    (a, b) => a.entry.depth - b.entry.depth || a.startedAt - b.startedAt || compareText(a.entry.runId, b.entry.runId),
  );
  return { rootRunId, runs: entries.map(({ entry }) => entry) };
}
