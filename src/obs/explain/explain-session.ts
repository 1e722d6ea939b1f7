// Loads a session's evidence through the loader (the only I/O) and hands it to the pure assembler.
import type { SessionLoader } from '../evidence/session-loader.js';
import { assembleIncidentReport } from './assemble.js';
import { sessionNotFound } from './not-found.js';
import type { ExplainDepth, ExplainResult } from './types.js';

export interface ExplainParams {
  sessionKey?: string;
  traceId?: string;
  rootRunId?: string;
  depth?: ExplainDepth;
  includeSynthetic?: boolean;
}

export async function explainSession(loader: SessionLoader, params: ExplainParams): Promise<ExplainResult> {
  const { depth = 'summary', includeSynthetic = false, ...reference } = params;
  const loaded = await loader.load(reference, { includeSynthetic });
  if (!loaded.found)
    return sessionNotFound({ kind: loaded.missed.kind, value: loaded.missed.value }, loaded.missed.detail);
  return assembleIncidentReport(loaded.evidence, { depth });
}
