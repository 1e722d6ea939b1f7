// Background responses (`background: true`, DESIGN §3): answered `queued` at once, the turn runs off the request as a
// run of kind `response`, and the stored status moves queued → in_progress → an end, where any replica's GET reads it.
import { GatewayError, maskUnknown, publicMessage } from '../../errors.js';
import type { RunHandle } from '../../runs/index.js';
import { UNFINISHED_RESPONSE_STATUSES, type StoredResponse } from '../../store/index.js';
import type { TurnRequest, TurnResult } from '../../turns/index.js';
import {
  finishedStatus,
  responseObject,
  type ResponseEcho,
  type ResponseIds,
  type ResponseState,
} from './response-object.js';
import { turnFailure } from './turn-input.js';
import type { OpenAiContext } from './types.js';

/** `responses.maxBackgroundPerToken` when the deps give no reader (the config schema's default). */
export const DEFAULT_MAX_BACKGROUND_PER_TOKEN = 16;

/** The error of a background response whose gateway stopped before it ended (shutdown, or a crash found later). */
export const BACKGROUND_STOPPED_ERROR = 'The gateway stopped before this background response finished; create it again';

/** What a background response needs from the prepared request. */
export interface BackgroundRequest {
  ids: ResponseIds;
  echo: ResponseEcho;
  turn: Omit<TurnRequest, 'signal' | 'onDelta'>;
  clientId: string;
}

export interface BackgroundResponses {
  /** Records the run and the `queued` response, starts the turn off the request; resolves with the queued body. */
  start(request: BackgroundRequest): Promise<string>;
  /**
   * The stored response as it is: one left `queued` or `in_progress` by a process that is gone (its run is no longer
   * running) is first marked `failed` with BACKGROUND_STOPPED_ERROR.
   */
  current(stored: StoredResponse): Promise<StoredResponse>;
  /** Stops this process's turn of a response the cancel route has just marked `cancelled`. */
  abort(responseId: string): void;
  /** Resolves once every background turn of this process has recorded its end. */
  whenIdle(): Promise<void>;
}

interface LiveResponse {
  clientId: string;
  /** Aborted by POST /v1/responses/:id/cancel. */
  cancel: AbortController;
}

/** The response object with a new status (and error), rebuilt from the stored body of an unfinished response. */
export function restatedBody(body: string | undefined, status: 'failed' | 'cancelled', error: string | null): string {
  const parsed: unknown = body === undefined ? {} : JSON.parse(body);
  const object = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {};
  return JSON.stringify({ ...object, status, error: error === null ? null : { code: 'server_error', message: error } });
}

export function createBackgroundResponses(ctx: OpenAiContext): BackgroundResponses {
  const live = new Map<string, LiveResponse>();
  const tasks = new Set<Promise<void>>();
  const inFlightOf = (clientId: string) => [...live.values()].filter((entry) => entry.clientId === clientId).length;

  /** Writes the response's next state, only while it is still unfinished; false when a cancel (or a repair) came first. */
  const advance = (request: BackgroundRequest, from: typeof UNFINISHED_RESPONSE_STATUSES, state: ResponseState) =>
    ctx.responses.transition(
      request.ids.responseId,
      from,
      state.status,
      JSON.stringify(responseObject(request.ids, request.echo, state)),
    );

  /** Which end the turn came to: the gateway's shutdown, a cancel, run.kill, or the turn's own answer or failure. */
  function endOf(
    run: RunHandle,
    entry: LiveResponse,
    result: TurnResult | undefined,
    failure: GatewayError | undefined,
  ): ResponseState {
    if (ctx.shutdownSignal.aborted)
      return { status: 'failed', error: new GatewayError('unavailable', BACKGROUND_STOPPED_ERROR) };
    if (entry.cancel.signal.aborted || run.signal.aborted) return { status: 'cancelled' };
    if (failure !== undefined || result === undefined)
      return { status: 'failed', error: failure ?? new GatewayError('internal', 'The turn ended without a result') };
    return { status: finishedStatus(result), result };
  }

  async function execute(request: BackgroundRequest, run: RunHandle, entry: LiveResponse): Promise<void> {
    if (!(await advance(request, ['queued'], { status: 'in_progress' }))) {
      await run.finish({ status: 'failed', error: 'The response was cancelled before it started' });
      return;
    }
    let result: TurnResult | undefined;
    let failure: GatewayError | undefined;
    try {
      result = await ctx.runner.run({
        ...request.turn,
        rootRunId: request.ids.responseId,
        signal: AbortSignal.any([run.signal, entry.cancel.signal, ctx.shutdownSignal]),
      });
      failure = turnFailure(result, 'input');
    } catch (error) {
      failure = maskUnknown(error, ctx.log, { responseId: request.ids.responseId }, 'background response failed');
    }
    const end = endOf(run, entry, result, failure);
    // The cancel route wrote `cancelled` itself; a cancel on another replica wins the same way (the answer is dropped).
    const isRecorded = !entry.cancel.signal.aborted && (await advance(request, ['in_progress'], end));
    const isAnswered = isRecorded && (end.status === 'completed' || end.status === 'incomplete');
    const usage =
      result === undefined ? {} : { response: result.response, tokensUsed: result.tokensUsed, costUsd: result.costUsd };
    if (isAnswered) await run.finish({ status: 'completed', ...usage });
    else
      await run.finish({
        status: 'failed',
        ...usage,
        error: isRecorded && end.error !== undefined ? publicMessage(end.error) : 'The response was cancelled',
      });
  }

  function launch(request: BackgroundRequest, run: RunHandle, entry: LiveResponse): void {
    const { responseId } = request.ids;
    const task = execute(request, run, entry)
      .catch((error: unknown) =>
        ctx.log.error({ err: error, responseId }, 'a background response could not record its end'),
      )
      .finally(() => {
        live.delete(responseId);
        tasks.delete(task);
      });
    tasks.add(task);
  }

  return {
    async start(request) {
      const { ids, echo, turn, clientId } = request;
      const limit = ctx.maxBackgroundPerToken?.() ?? DEFAULT_MAX_BACKGROUND_PER_TOKEN;
      if (inFlightOf(clientId) >= limit) {
        throw new GatewayError(
          'rate_limited',
          `Too many background responses in flight for this token (responses.maxBackgroundPerToken: ${limit}); wait for one to end or cancel one`,
        );
      }
      if (ctx.shutdownSignal.aborted) throw new GatewayError('unavailable', 'The gateway is shutting down');
      // The slot is held from here, so concurrent requests cannot pass the limit together.
      const entry: LiveResponse = { clientId, cancel: new AbortController() };
      live.set(ids.responseId, entry);
      try {
        const agentId = turn.agentId ?? ctx.agents.defaultAgentId() ?? 'default';
        const run = await ctx.backgroundRuns.control.startRun({
          runId: ids.responseId,
          rootRunId: ids.responseId,
          kind: 'response',
          agentId,
          sessionKey: turn.sessionKey,
          task: turn.message,
          requestedBy: clientId,
        });
        const queued = JSON.stringify(responseObject(ids, echo, { status: 'queued' }));
        try {
          await ctx.responses.save(
            {
              responseId: ids.responseId,
              sessionKey: turn.sessionKey,
              clientId,
              createdAt: ctx.now(),
              status: 'queued',
              isBackground: true,
            },
            queued,
          );
        } catch (error) {
          await run.finish({ status: 'failed', error: 'The response could not be stored' });
          throw error;
        }
        launch(request, run, entry);
        return queued;
      } catch (error) {
        live.delete(ids.responseId);
        throw error;
      }
    },

    async current(stored) {
      if (!UNFINISHED_RESPONSE_STATUSES.includes(stored.status) || live.has(stored.responseId)) return stored;
      const run = await ctx.backgroundRuns.store.get(stored.responseId);
      if (run?.status === 'running') return stored;
      const body = restatedBody(stored.body, 'failed', BACKGROUND_STOPPED_ERROR);
      await ctx.responses.transition(stored.responseId, UNFINISHED_RESPONSE_STATUSES, 'failed', body);
      return (await ctx.responses.read(stored.responseId)) ?? stored;
    },

    abort(responseId) {
      live.get(responseId)?.cancel.abort();
    },

    async whenIdle() {
      while (tasks.size > 0) await Promise.all([...tasks]);
    },
  };
}
