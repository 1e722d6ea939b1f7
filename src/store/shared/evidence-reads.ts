// Every read of the EvidencePort, for both backends: a session's turns and records, windows of them, and record reads.
import type { EvidencePort } from '../ports/evidence.js';
import { createSessionReads } from './evidence-sessions.js';
import { createWindowReads } from './evidence-window.js';
import type { StoreDb } from './store-db.js';
import { createRecordReads } from './turn-records.js';

export function createEvidenceReads(store: StoreDb): Omit<EvidencePort, 'append'> {
  return { ...createSessionReads(store), ...createWindowReads(store), ...createRecordReads(store) };
}
