// Waiting for another replica to record the stop of a run it runs: the store is read until the run is no longer
// running, for a bounded time, so run.kill and lease.revoke answer the status the stop left whichever replica answers.
import { setTimeout as delay } from 'node:timers/promises';
import type { RunPort, RunStatus } from '../store/index.js';

/** How long the answer waits for the replica running the tree to record its stop. */
export const STOP_RECORDED_WAIT_MS = 2_000;
const STOP_RECORDED_POLL_MS = 25;

/** The run's status once it is no longer `running`, or `running` when the wait ran out (the stop is still on its way). */
export async function stopRecorded(
  runs: Pick<RunPort, 'get'>,
  runId: string,
  waitMs = STOP_RECORDED_WAIT_MS,
): Promise<{ runId: string; status: RunStatus }> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const status = (await runs.get(runId))?.status ?? 'running';
    if (status !== 'running' || Date.now() >= deadline) return { runId, status };
    await delay(STOP_RECORDED_POLL_MS);
  }
}
