// The trajectory record kinds and health-signal kinds the reports read, with the data shape of each (see README.md).

/** Trajectory record kinds (`trajectory.kind`); `data` is a counts-and-ids JSON object, never message bodies (a failed model call keeps the upstream's masked error message). */
export const TRAJECTORY_KIND = {
  // Written by the turn loop today (src/agents/turn-trace.ts).
  turnStart: 'turn_start',
  modelCall: 'model_call',
  modelError: 'model_error',
  breaker: 'breaker',
  toolCall: 'tool_call',
  contextBudget: 'context_budget',
  turnEnd: 'turn_end',
  // Written by the capability modules that produce them (recall, voice, …); the reports read them when present.
  promptTimeout: 'prompt_timeout',
  recall: 'recall',
  voice: 'voice',
  learningOutcome: 'learning_outcome',
  learningSkill: 'learning_skill',
  learningSynthesis: 'learning_synthesis',
  learningLifecycle: 'learning_lifecycle',
  orchestrateRun: 'orchestrate_run',
  capabilityAudited: 'capability_audited',
  cronWakeGate: 'cron_wake_gate',
  terminalDrivePromoted: 'terminal_drive_promoted',
  terminalDriveInput: 'terminal_drive_input',
  terminalSessionEvicted: 'terminal_session_evicted',
  /** A drive closed by the agent, an operator or the gateway stopping: data `{driveId, reason, interactions, durationMs}`. */
  terminalDriveClosed: 'terminal_drive_closed',
  offload: 'offload',
  toolRollup: 'tool_rollup',
  /** A tool offered only as a failing stand-in: data `{toolName, errorKind: 'mcp_unavailable', reason}` (src/turns/turn-trace.ts). */
  toolUnavailable: 'tool_unavailable',
  // Written by the recorder in place of a turn's records past its cap (src/obs/recorder.ts).
  stepsCapped: 'steps_capped',
} as const;

/** Health-signal kinds (`health_signals.kind`): fleet-level evidence that is not tied to one session's trajectory. */
export const SIGNAL_KIND = {
  configPosture: 'config_posture',
  voice: 'voice',
  pipelineAuthored: 'pipeline_authored',
  orchestrateRunSummary: 'orchestrate_run_summary',
  cronWakeGate: 'cron_wake_gate',
  memoryLifecycle: 'memory_lifecycle',
  autonomyKilled: 'autonomy.killed',
  autonomyResumed: 'autonomy.resumed',
  autonomyDenialBreaker: 'autonomy.denial_breaker',
  autonomyBreakerTrip: 'autonomy.breaker_trip',
  autonomyBudgetBreach: 'autonomy.budget_breach',
  sessionRebase: 'session_rebase',
  learningSkillPromoted: 'learning.skill_promoted',
  learningSkillDemoted: 'learning.skill_demoted',
  learningMemoryFailureAttributed: 'learning.memory_failure_attributed',
  learningMemoryDemoted: 'learning.memory_demoted',
  learningMemoryEvicted: 'learning.memory_evicted',
  learningLifecycleSwept: 'learning.lifecycle_swept',
  /** One per agent per reflect pass: the catalogue's reflect:funnel (src/learning/reflect). */
  reflectFunnel: 'reflect.funnel',
  /** A reflect pass that admitted candidates: data `{agentId, count, timestamp}`. */
  reflectAdmitted: 'reflect.admitted',
  /** Any other recurring condition: data `{code}`; recurrence is counted per code. */
  health: 'health',
} as const;

export type SignalKind = (typeof SIGNAL_KIND)[keyof typeof SIGNAL_KIND];

export const SEVERITIES = ['info', 'warning', 'error'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const WINDOW_CAP_SOURCES = [
  'effectiveContextCapSmall',
  'effectiveContextCapNano',
  'served',
  'capabilityClass',
  'none',
] as const;
export const BUDGET_VERDICTS = ['fits', 'downshifted', 'exhausted'] as const;
export const VOICE_SOURCES = ['keyless-local', 'follow-main-key', 'fallback', 'explicit'] as const;
export const VOICE_OUTCOMES = ['ok', 'failed'] as const;
export const VOICE_ERROR_KINDS = [
  'no_keyless_engine',
  'auth_required',
  'model_load_failed',
  'model_download_failed',
  'timeout',
  'network',
  'dependency',
] as const;
export const LEARNING_OUTCOMES = ['success', 'failure', 'corrected', 'unknown'] as const;
/** Also the order in which learning.sources is listed. */
export const LEARNING_SOURCES = ['tool', 'pipeline', 'correction', 'judge', 'reaction', 'explicit'] as const;
export const ORCHESTRATE_FAILURE_CLASSES = [
  'timeout',
  'stdout_cap',
  'nonzero_exit',
  'spawn_fail',
  'lease_absent',
] as const;
/** `approval`: the call waited for an operator; its outcome (allow or deny) is a record of its own. */
export const CAPABILITY_DECISIONS = ['allow', 'deny', 'approval'] as const;
export const EVICTION_REASONS = ['idle', 'wall_clock', 'max_sessions', 'max_interactions'] as const;
export const AUTHORING_TIERS = ['frontier', 'small', 'nano'] as const;
export const TIMEOUT_PHASES = ['stall', 'makespan'] as const;

/**
 * A tool_call whose failure was decided by a content heuristic (the tool itself returned normally) carries
 * `classifiedBy: 'content_heuristic'`; a session whose failures are all of this sort gets the
 * content_heuristic_misclassification cause instead of a tool-failure cause.
 */
export const CONTENT_HEURISTIC = 'content_heuristic';
