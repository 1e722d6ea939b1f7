// Reads a window's evidence for obs.fleet.health through the EvidencePort (the only I/O) and returns it as plain records.
import type { Capped, EvidencePort } from '../../store/index.js';
import { SIGNAL_KIND, TRAJECTORY_KIND } from './kinds.js';
import type { FleetEvidence } from './records.js';
import { toRunEvidence, toSignalEvidence, toTrajectoryEvidence, toUsageEvidence } from './rows.js';

/** Row caps per input; a capped input is listed in the report's truncations[]. */
export const FLEET_ROW_CAPS = { sessions: 50_000, trajectory: 200_000, signals: 100_000, runs: 50_000 } as const;

/** The trajectory kinds the fleet report reads. */
const FLEET_KINDS = [
  TRAJECTORY_KIND.toolCall,
  TRAJECTORY_KIND.breaker,
  TRAJECTORY_KIND.turnEnd,
  TRAJECTORY_KIND.modelError,
];

export interface FleetLoaderDeps {
  port: EvidencePort;
  flush?: () => Promise<void>;
  /** Whether the crash-surviving run table is part of this process; false (offline CLI) leaves out the autonomy block. */
  hasDurableRuns: boolean;
}

export interface FleetLoader {
  load(window: { nowMs: number; sinceHours: number }): Promise<FleetEvidence>;
}

export function createFleetLoader({ port, flush, hasDurableRuns }: FleetLoaderDeps): FleetLoader {
  return {
    async load({ nowMs, sinceHours }) {
      await flush?.();
      const window = { sinceMs: nowMs - sinceHours * 3_600_000, untilMs: nowMs };
      const caps: { field: string; kept: number; total: number }[] = [];
      const capped = <T>(field: string, { rows, total }: Capped<T>, limit: number): T[] => {
        if (rows.length === limit) caps.push({ field, kept: limit, total });
        return rows;
      };
      const sessions = capped(
        'sessions',
        await port.sessionIndexIn({ ...window, includeSynthetic: false, limit: FLEET_ROW_CAPS.sessions }),
        FLEET_ROW_CAPS.sessions,
      );
      const trajectory = capped(
        'trajectory',
        await port.trajectoryOfTurnsIn({
          ...window,
          includeSynthetic: false,
          kinds: FLEET_KINDS,
          limit: FLEET_ROW_CAPS.trajectory,
        }),
        FLEET_ROW_CAPS.trajectory,
      );
      const signals = capped(
        'signals',
        await port.healthSignalsIn({
          ...window,
          excludeKind: SIGNAL_KIND.configPosture,
          limit: FLEET_ROW_CAPS.signals,
        }),
        FLEET_ROW_CAPS.signals,
      );
      const runs = hasDurableRuns
        ? capped('runs', await port.runsStartedIn({ ...window, limit: FLEET_ROW_CAPS.runs }), FLEET_ROW_CAPS.runs)
        : undefined;
      const latestPosture = await port.latestHealthSignal({ kind: SIGNAL_KIND.configPosture, atOrBeforeMs: nowMs });
      const usage = await port.usageByAgent(window);
      return {
        nowMs,
        sinceHours,
        sessions,
        trajectory: trajectory.map(toTrajectoryEvidence),
        usage: usage.map(toUsageEvidence),
        signals: signals.map(toSignalEvidence),
        ...(latestPosture === undefined ? {} : { latestPosture: toSignalEvidence(latestPosture) }),
        ...(runs === undefined ? {} : { runs: runs.map(toRunEvidence) }),
        ...(caps.length === 0 ? {} : { caps }),
      };
    },
  };
}
