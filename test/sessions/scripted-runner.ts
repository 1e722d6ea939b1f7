// A scripted TurnLoop for session tests: the real TurnService (lock, session, owner check, usage) runs it in place of
// the model loop, which has its own tests under test/turns/; it appends the user message and the scripted answer.
import type { SessionPort } from '../../src/sessions/index.js';
import type { TurnLoop, TurnRequest, TurnResult } from '../../src/turns/index.js';

export interface ScriptedTurn {
  response?: string;
  tokens?: { input: number; output: number };
  costUsd?: number;
  steps?: number;
  finishReason?: TurnResult['finishReason'];
  error?: string;
  /** Thrown instead of answering (after the user message is stored). */
  throws?: Error;
  /** The turn waits for this before answering (to hold a turn open). */
  gate?: Promise<void>;
  /** The turn runs until its request's signal aborts, then ends with finishReason `aborted`, as the turn loop does. */
  untilAborted?: boolean;
}

export interface ScriptedRunner extends TurnLoop {
  /** Queues turns; an empty queue answers `Echo: <message>`. */
  script(...turns: ScriptedTurn[]): void;
  readonly requests: TurnRequest[];
  /** How many earlier messages each turn was given (its history), in the order of `requests`. */
  readonly historyLengths: number[];
  /** How many turns are running right now, and the most that ever ran at once. */
  readonly concurrency: { current: number; max: number };
}

export function createScriptedRunner({
  store,
  now,
}: {
  store: Pick<SessionPort, 'append'>;
  now: () => number;
}): ScriptedRunner {
  const queue: ScriptedTurn[] = [];
  const requests: TurnRequest[] = [];
  const historyLengths: number[] = [];
  const concurrency = { current: 0, max: 0 };
  return {
    requests,
    historyLengths,
    concurrency,
    script: (...turns) => {
      queue.push(...turns);
    },
    async run({ request, agent, history }) {
      const agentId = agent.id;
      requests.push(request);
      historyLengths.push(history.length);
      const turn = queue.shift() ?? {};
      concurrency.current += 1;
      concurrency.max = Math.max(concurrency.max, concurrency.current);
      try {
        await store.append(request.sessionKey, [{ role: 'user', content: request.message, timestamp: now() }], now());
        if (turn.gate !== undefined) await turn.gate;
        if (turn.throws !== undefined) throw turn.throws;
        if (turn.untilAborted === true) {
          await new Promise<void>((resolve) => {
            if (request.signal.aborted) resolve();
            request.signal.addEventListener('abort', () => resolve(), { once: true });
          });
          turn.finishReason = 'aborted';
          turn.error ??= 'The turn was aborted';
        }
        const response = turn.response ?? `Echo: ${request.message}`;
        await store.append(request.sessionKey, [{ role: 'assistant', content: response, timestamp: now() }], now());
        const tokens = turn.tokens ?? { input: 10, output: 5 };
        // Its appends were awaited, so they are committed already.
        const result: TurnResult = {
          response,
          tokensUsed: { input: tokens.input, output: tokens.output, total: tokens.input + tokens.output },
          finishReason: turn.finishReason ?? 'stop',
          agentId,
          sessionKey: request.sessionKey,
          traceId: `trace-${requests.length}`,
          costUsd: turn.costUsd ?? 0.001,
          steps: turn.steps ?? 1,
          ...(turn.error === undefined ? {} : { error: turn.error }),
        };
        return { result, stored: Promise.resolve() };
      } finally {
        concurrency.current -= 1;
      }
    },
  };
}

/** A promise with its resolve function, to hold a scripted turn open until the test lets it go. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
