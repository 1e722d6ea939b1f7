// The orchestrate config section: bounds of agents' orchestrate scripts (src/orchestrate) and their capability leases.
import { z } from 'zod';
import { durationMs, positiveInt } from './schema-units.js';

/** Orchestrate scripts: each run is a sandboxed child process under a capability lease of the agent's tools. */
export const orchestrateConfigSchema = z
  .strictObject({
    /** A run's time limit when the call gives none. */
    defaultTimeoutMs: durationMs(1).default(30_000),
    /** The longest `timeoutMs` a call may ask for; a larger one is cut to it. */
    maxTimeoutMs: durationMs(1).default(120_000),
    /** Memory the script's engine may allocate, in bytes (64 MiB). */
    memoryBytes: positiveInt
      .min(1_048_576)
      .max(1_073_741_824)
      .default(64 * 1_048_576),
    /** Bytes of console output a run may write before it fails with `stdout_cap` (64 KiB; at most 4 MiB). */
    stdoutBytes: positiveInt.max(4 * 1_048_576).default(65_536),
    /** Tool calls one run may make (its lease's maxCalls); calls past it are denied. */
    maxToolCallsPerRun: positiveInt.max(10_000).default(100),
    /** Consecutive denied calls in one run that trip the capability-denial breaker (the run tree aborts). */
    denialBreaker: positiveInt.max(1_000).default(3),
    /** Runs one session may start while this gateway runs; past it a call is refused with a tool error. */
    maxRunsPerSession: positiveInt.max(100_000).default(100),
    /** Runs one agent may have in flight at once; past it a call is refused with a tool error. */
    maxRunsInFlightPerAgent: positiveInt.max(1_000).default(4),
  })
  .refine((config) => config.defaultTimeoutMs <= config.maxTimeoutMs, {
    path: ['defaultTimeoutMs'],
    message: 'must be at most maxTimeoutMs',
  });

export type OrchestrateConfig = z.infer<typeof orchestrateConfigSchema>;
