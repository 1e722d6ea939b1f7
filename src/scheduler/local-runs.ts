// The RunLifecycle the scheduler uses when no run control is wired: each fire gets a signal aborted at shutdown.
import type { RunLifecycle } from './types.js';

export interface LocalRunLifecycle extends RunLifecycle {
  /** Aborts every fire still running (gateway shutdown). */
  abortAll(): void;
}

export function createLocalRunLifecycle(): LocalRunLifecycle {
  const live = new Set<AbortController>();
  return {
    async startRun() {
      const controller = new AbortController();
      live.add(controller);
      return {
        signal: controller.signal,
        finish: async () => {
          live.delete(controller);
        },
      };
    },
    abortAll() {
      for (const controller of live) controller.abort(new Error('The gateway is shutting down'));
      live.clear();
    },
  };
}
