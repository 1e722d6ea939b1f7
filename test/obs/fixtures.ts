// Builders for evidence fixtures: a session's trajectory written record by record, and fleet windows.
import type {
  FleetEvidence,
  HealthSignalEvidence,
  RunEvidence,
  SessionEvidence,
  SessionIndexEvidence,
  TrajectoryEvidence,
} from '../../src/obs/evidence/records.js';

export const SESSION = 'default:alice:ws';
export const TRACE = 'trace-1';

/** Appends records with increasing seq and ts, the way the recorder numbers them. */
export class TrajectoryBuilder {
  readonly records: TrajectoryEvidence[] = [];
  #seq = 0;
  constructor(
    private readonly traceId = TRACE,
    private readonly startTs = 1_000,
  ) {}

  add(kind: string, data: Record<string, unknown> = {}, traceId = this.traceId): this {
    this.#seq += 1;
    this.records.push({ seq: this.#seq, ts: this.startTs + this.#seq, traceId, kind, data });
    return this;
  }

  turn(
    endReason: string,
    body: (builder: this) => void = () => undefined,
    usage = { inputTokens: 100, outputTokens: 20, costUsd: 0.001 },
  ): this {
    this.add('turn_start', { agentId: 'default', channel: 'ws' });
    this.add('model_call', {
      step: 1,
      provider: 'local',
      model: 'm',
      ...usage,
      cacheReadTokens: 40,
      cacheWriteTokens: 0,
      latencyMs: 5,
      finishReason: 'stop',
      toolCalls: 0,
      textChars: 3,
    });
    body(this);
    return this.add('turn_end', {
      finishReason: endReason === 'completed' ? 'stop' : endReason,
      endReason,
      steps: 1,
      ...usage,
      toolFailures: 0,
      durationMs: 250,
    });
  }

  tool(toolName: string, ok: boolean, errorKind?: string, extra: Record<string, unknown> = {}): this {
    return this.add('tool_call', {
      step: 1,
      toolName,
      ok,
      ...(errorKind === undefined ? {} : { errorKind }),
      resultDigest: `sha256:${toolName.length.toString(16).padStart(16, '0')}`,
      resultBytes: 42,
      durationMs: 7,
      ...extra,
    });
  }
}

export function indexRow(overrides: Partial<SessionIndexEvidence> = {}): SessionIndexEvidence {
  return {
    traceId: TRACE,
    sessionKey: SESSION,
    agentId: 'default',
    channel: 'ws',
    messageId: null,
    rootRunId: null,
    endReason: 'completed',
    degraded: false,
    startedAt: 1_000,
    endedAt: 2_000,
    day: '1970-01-01',
    isSynthetic: false,
    ...overrides,
  };
}

export function sessionEvidence(
  records: readonly TrajectoryEvidence[],
  overrides: Partial<SessionEvidence> = {},
): SessionEvidence {
  const lastEnd = [...records].reverse().find((record) => record.kind === 'turn_end');
  const endReason = typeof lastEnd?.data.endReason === 'string' ? lastEnd.data.endReason : null;
  return {
    sessionKey: SESSION,
    index: [indexRow({ endReason, degraded: endReason !== null && endReason !== 'completed' })],
    trajectory: records,
    runs: [],
    sources: { session: 'sqlite:session_index', trajectory: 'sqlite:trajectory' },
    ...overrides,
  };
}

export const HOUR = 3_600_000;
export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

let signalId = 0;
export function signal(
  kind: string,
  data: Record<string, unknown> = {},
  overrides: Partial<HealthSignalEvidence> = {},
): HealthSignalEvidence {
  signalId += 1;
  return { id: signalId, ts: NOW - HOUR, kind, agentId: null, rootRunId: null, severity: 'info', data, ...overrides };
}

export function run(runId: string, status: string, overrides: Partial<RunEvidence> = {}): RunEvidence {
  return {
    runId,
    rootRunId: runId,
    parentKey: null,
    sessionKey: `default:alice:subagent:${runId}`,
    agentId: 'default',
    status,
    startedAt: NOW - HOUR,
    costUsd: 0.01,
    ...overrides,
  };
}

export function fleetEvidence(overrides: Partial<FleetEvidence> = {}): FleetEvidence {
  return { nowMs: NOW, sinceHours: 24, sessions: [], trajectory: [], usage: [], signals: [], ...overrides };
}

/** One fleet session turn: its index row plus a turn_end record. */
export function fleetTurn(
  n: number,
  endReason: string | null,
  agentId = 'default',
  channel = 'ws',
): { row: SessionIndexEvidence; end: TrajectoryEvidence } {
  const traceId = `t-${n}`;
  const row = indexRow({
    traceId,
    sessionKey: `default:u${n}:${channel}`,
    agentId,
    channel,
    endReason,
    degraded: endReason !== null && endReason !== 'completed',
    startedAt: NOW - HOUR + n,
    endedAt: NOW - HOUR + n + 10,
    day: '2026-01-15',
  });
  return {
    row,
    end: {
      seq: 1,
      ts: NOW - HOUR + n,
      traceId,
      kind: 'turn_end',
      data: { endReason: endReason ?? 'completed', inputTokens: 10, outputTokens: 5 },
    },
  };
}
