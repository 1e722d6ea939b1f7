// Pre-started script children: starting node and loading QuickJS takes far longer than the 50 ms a run may take to reach
// its first tool call, so idle children wait with QuickJS loaded. Each serves one run and is never reused; taking one
// starts its replacement in the background.
import { ScriptChildProcess, killAllScriptChildren } from './child-process.js';

/** The most idle children a gateway keeps (each is a node process of about 60 MB resident). */
export const SCRIPT_CHILD_POOL_MAX = 4;

let target = 1;
const idle: ScriptChildProcess[] = [];

/**
 * Sets how many idle children to keep (0 turns pre-starting off) and starts them now, e.g. at gateway start when an
 * agent may orchestrate. Without a call, the first run starts its own child and one is kept from then on. Resolves
 * once every idle child is ready or has failed to start (never rejects).
 */
export async function prewarmScriptChildren(count: number): Promise<void> {
  target = Math.max(0, Math.min(SCRIPT_CHILD_POOL_MAX, Math.floor(count)));
  for (const extra of idle.splice(target)) extra.killNow();
  refill();
  await Promise.allSettled(idle.map((child) => child.ready));
}

/** An idle child (possibly still starting) or, when none is left, a new one; then tops the pool up. */
export function takeScriptChild(): ScriptChildProcess {
  let child = idle.shift();
  while (child !== undefined && !child.alive) child = idle.shift();
  const taken = child ?? new ScriptChildProcess(process.execPath);
  refill();
  return taken;
}

/** Kills every script child, running and idle; runs in flight end as failed. For gateway shutdown. */
export function killAllScriptRuns(): void {
  idle.splice(0);
  killAllScriptChildren();
}

function refill(): void {
  while (idle.length < target) {
    let child: ScriptChildProcess;
    try {
      child = new ScriptChildProcess(process.execPath);
    } catch {
      // No entry file: every run reports spawn_fail on its own.
      return;
    }
    // Starting, it holds the gateway's event loop (an awaited prewarm finishes); ready and idle, it no longer does.
    child.ready.then(
      () => {
        if (idle.includes(child)) child.setRef(false);
      },
      () => undefined,
    );
    idle.push(child);
  }
}
