// admin.approval.*: the operator's side of tool-call approvals (catalogue "audio, approvals, agents").
import { z } from 'zod';
import { defineMethod, noParams } from '../rpc/index.js';
import { sessionKeyStringSchema } from '../sessions/index.js';
import {
  APPROVAL_HISTORY_DEFAULT_LIMIT,
  APPROVAL_HISTORY_MAX_LIMIT,
  type ApprovalHistory,
} from './approval-history.js';
import type { ApprovalService } from './approval-service.js';

const reason = z.string().min(1).max(1_000);

export function approvalMethods(approvals: ApprovalService, history: ApprovalHistory) {
  return [
    defineMethod({
      name: 'admin.approval.pending',
      scope: 'admin',
      summary:
        'Tool calls waiting for a decision, oldest first: { requests: [{ id, agentId, sessionKey, toolName, args, argsDigest, traceId, rootRunId?, requestedBy, requestedAt, expiresAt }] } (epoch ms; expiresAt null waits forever).',
      params: noParams,
      handler: async (_params, ctx) => ({ requests: await approvals.pending(ctx.signal) }),
    }),
    defineMethod({
      name: 'admin.approval.resolve',
      scope: 'admin',
      summary:
        'Approves or denies one pending request; the waiting tool call runs or gets the denial. Returns { id, approved, status, resolvedBy, resolvedAt }; an unknown id is not_found, an ended one conflict.',
      params: z.strictObject({ id: z.string().min(1).max(256), approved: z.boolean(), reason: reason.optional() }),
      handler: ({ id, approved, reason: why }, ctx) =>
        approvals.resolve(id, {
          approved,
          resolvedBy: ctx.caller.clientId,
          ...(why === undefined ? {} : { reason: why }),
        }),
    }),
    defineMethod({
      name: 'admin.approval.resolveAll',
      scope: 'admin',
      summary:
        "Resolves every pending request (of one session when sessionKey is given) as approvedBy (default 'operator'). Returns { resolved, requestIds }.",
      params: z.strictObject({
        approved: z.boolean(),
        sessionKey: sessionKeyStringSchema.optional(),
        approvedBy: z.string().min(1).max(128).optional(),
        reason: reason.optional(),
      }),
      handler: ({ approved, sessionKey, approvedBy, reason: why }) =>
        approvals.resolveAll({
          approved,
          resolvedBy: approvedBy ?? 'operator',
          ...(sessionKey === undefined ? {} : { sessionKey }),
          ...(why === undefined ? {} : { reason: why }),
        }),
    }),
    defineMethod({
      name: 'admin.approval.clearDenialCache',
      scope: 'admin',
      summary:
        'Forgets every cached denial, so the next identical gated call asks an operator again. Returns { cleared: true }.',
      params: noParams,
      handler: () => {
        approvals.clearDenialCache();
        return { cleared: true as const };
      },
    }),
    defineMethod({
      name: 'admin.approval.history',
      scope: 'admin',
      summary: `Decisions on gated tool calls, newest first: { decisions: [{ id, agentId, sessionKey, toolName, argsDigest, traceId, requestedBy, requestedAt, decision (approved or denied), resolvedBy (token id, or the gateway's cause for an unanswered request), resolvedAt, waitMs, reason }], nextCursor } (never the arguments). limit default ${APPROVAL_HISTORY_DEFAULT_LIMIT}, clamped to ${APPROVAL_HISTORY_MAX_LIMIT}; pass nextCursor as cursor for the next page (null on the last).`,
      params: z.strictObject({
        limit: z.number().int().positive().optional(),
        cursor: z.string().min(1).max(1024).optional(),
      }),
      handler: (params) => history.page(params),
    }),
  ];
}
