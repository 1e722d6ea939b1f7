// Approvals: gated tool calls wait for an operator (beforeTool), admin.approval.*, and the capability-denial breaker.
import type { CapabilityModule } from '../capability.js';
import { createApprovalService, type ApprovalService, type ApprovalServiceDeps } from './approval-service.js';
import { createApprovalHistory } from './approval-history.js';
import { approvalMethods } from './methods.js';

export { argsDigest, canonicalJson } from './args-digest.js';
export { chatApprovalsWiring } from './chat-wiring.js';
export { approvalMethods } from './methods.js';
export type { DenialBreaker } from './denial-breaker.js';
export type { ApprovalService, ApprovalServiceDeps } from './approval-service.js';

export interface ApprovalsModule extends CapabilityModule {
  readonly approvals: ApprovalService;
  /** Forgets the session's cached denials; session.reset calls it (catalogue session rule 2). */
  forgetSession(sessionKey: string): void;
}

export function createApprovalsModule(deps: ApprovalServiceDeps): ApprovalsModule {
  const approvals = createApprovalService(deps);
  return {
    name: 'approvals',
    approvals,
    methods: approvalMethods(approvals, createApprovalHistory(deps.port)),
    hooks: { beforeTool: (call, ctx) => approvals.beforeTool(call, ctx) },
    forgetSession: (sessionKey) => {
      approvals.forgetSession(sessionKey);
    },
    async start() {
      await approvals.recoverAbandoned();
    },
    stop: () => approvals.close(),
  };
}
