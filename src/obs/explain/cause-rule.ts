// What a root-cause rule reads (one session's evidence) and how it names a cause; root-cause.ts ranks the rules.
import type { TrajectoryEvidence } from '../evidence/records.js';
import type { ToolEvidence } from './tool-evidence.js';
import type { ContextBudgetBlock, LearningBlock, OrchestrateEntry, RecallBlock, RootCause } from './types.js';

export interface RootCauseInput {
  records: readonly TrajectoryEvidence[];
  endReason: string;
  degraded: boolean;
  tools: ToolEvidence;
  contextBudget: ContextBudgetBlock | undefined;
  recall: RecallBlock | undefined;
  learning: LearningBlock | undefined;
  orchestrate: OrchestrateEntry[] | undefined;
}

export type Rule = (input: RootCauseInput) => RootCause | undefined;

export const cause = (
  code: string,
  detail: string,
  suggestedNextSteps: string[],
  evidence?: RootCause['evidence'],
): RootCause =>
  evidence === undefined ? { code, detail, suggestedNextSteps } : { code, detail, suggestedNextSteps, evidence };
