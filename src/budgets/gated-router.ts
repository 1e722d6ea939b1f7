// The budget gate in front of the model router: every model call reserves its worst case against the budgets that apply
// before it is dispatched (refused: budget_exceeded, and the provider sees nothing), settles to its real use on finish,
// and releases the reservation when it never produced anything. With no budget that applies it is the router itself.
import type { Logger } from 'pino';
import type { BudgetConfig } from '../config/index.js';
import { budgetExceeded } from '../errors.js';
import type {
  CallPayer,
  GatewayModelRouter,
  ModelRef,
  ModelStreamEvent,
  RoutedCallRequest,
} from '../providers/index.js';
import { applicableBudgets } from './applicable.js';
import type { BudgetNotices } from './budget-notices.js';
import type { BudgetLedger, BudgetReservation, BudgetSubject } from './types.js';
import { partialUseOf, usedByCall, worstCaseOf } from './worst-case.js';

/** Who pays for a call that names no payer: the gateway itself, in the default tenant. */
export const SYSTEM_PAYER: CallPayer = { tokenId: 'system:gateway', tenantId: 'default' };

/** A reservation outlives its call's timeouts by this much before a ledger drops it (a crashed process's call). */
export const RESERVATION_MARGIN_MS = 60_000;
/** A candidate whose provider reports no timeout is given this long, in ms (the providers: default). */
const DEFAULT_CALL_TIMEOUT_MS = 120_000;

export interface BudgetGateDeps {
  ledger: BudgetLedger;
  /** The budgets in force (hot-applied config): read on every call. */
  budgets: () => readonly BudgetConfig[];
  notices: BudgetNotices;
  log: Logger;
}

export function subjectOf(agentId: string, payer: CallPayer | undefined): BudgetSubject {
  const { tokenId, tenantId } = payer ?? SYSTEM_PAYER;
  return { agentId, tokenId, tenantId };
}

/** The router with `stream` gated; every other method is the router's own. */
export function gateModelRouter(router: GatewayModelRouter, deps: BudgetGateDeps): GatewayModelRouter {
  const { ledger, budgets, notices, log } = deps;
  const entryOf = (ref: ModelRef) => router.entry(ref);
  /** The candidates are tried one after another, so the call may run for all their timeouts together. */
  const ttlOf = (request: RoutedCallRequest): number =>
    [request.primary, ...request.fallbacks].reduce(
      (sum, ref) => sum + (router.providerInfo(ref.provider)?.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS),
      RESERVATION_MARGIN_MS,
    );

  async function close(reservation: BudgetReservation, request: RoutedCallRequest, outputChars: number) {
    try {
      if (outputChars === 0) await ledger.release(reservation);
      else await ledger.settle(reservation, partialUseOf(request, entryOf, outputChars));
    } catch (error) {
      log.warn({ err: error, agentId: request.agentId }, 'budget reservation not closed; it expires after its ttl');
    }
  }

  async function* gated(request: RoutedCallRequest, subject: BudgetSubject): AsyncGenerator<ModelStreamEvent> {
    const outcome = await ledger.reserve(subject, worstCaseOf(request, entryOf), ttlOf(request));
    if (!outcome.ok) {
      notices.notice('budget:exhausted', outcome.budgetId);
      throw budgetExceeded(outcome.budgetId, outcome.retryAfterMs);
    }
    for (const budgetId of outcome.warnings) notices.notice('budget:warning', budgetId);
    for (const budgetId of outcome.exhausted) notices.notice('budget:exhausted', budgetId);
    const { reservation } = outcome;
    let outputChars = 0;
    let isClosed = false;
    try {
      for await (const event of router.stream(request)) {
        if (event.type === 'finish') {
          isClosed = true;
          await ledger
            .settle(reservation, usedByCall(event.usage, event.costUsd))
            .catch((error: unknown) =>
              log.warn({ err: error, agentId: request.agentId }, 'budget settlement failed; the reservation expires'),
            );
        } else if (event.type === 'text-delta') outputChars += event.text.length;
        else outputChars += JSON.stringify(event.input ?? null).length;
        yield event;
      }
    } finally {
      // Failed, aborted or abandoned before finish: nothing was billed unless output had streamed.
      if (!isClosed) await close(reservation, request, outputChars);
    }
  }

  return {
    ...router,
    stream(request) {
      const configured = budgets();
      // No budget configured, or none for this call: the router's own stream, not one more generator or await.
      if (configured.length === 0) return router.stream(request);
      const subject = subjectOf(request.agentId, request.payer);
      if (applicableBudgets(configured, subject).length === 0) return router.stream(request);
      return gated(request, subject);
    },
  };
}
