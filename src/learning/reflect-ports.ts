// The ports learning gives the reflect stage: the finished turns since an agent's last pass with their texts read
// from the transcripts (bounded by count and characters), admission of candidates, and the pass's end mark.
import type { LearningPort, SessionPort } from '../store/index.js';
import type { Procedures } from './procedures.js';
import { transcriptReader } from './transcript-texts.js';
import type { ReflectPorts, SourceTrajectory } from './types.js';

export interface ReflectPortsDeps {
  port: Pick<LearningPort, 'outcomesSince' | 'lastPass' | 'markPassed'>;
  sessions: Pick<SessionPort, 'history'>;
  procedures: Pick<Procedures, 'admit'>;
}

export function createReflectPorts({ port, sessions, procedures }: ReflectPortsDeps): ReflectPorts {
  return {
    async readSources(agentId, { maxTrajectories, maxChars }) {
      const since = await port.lastPass(agentId);
      const records = await port.outcomesSince(agentId, since, maxTrajectories);
      const texts = transcriptReader(sessions);
      const sources: SourceTrajectory[] = [];
      let chars = 0;
      // Newest first: a pass learns from the newest turns, and the first one whose texts would pass maxChars ends the
      // read. Older turns past the caps are not read by a later pass either (the pass mark moves past them).
      for (const record of records) {
        const { userText, answerText } = await texts(record.sessionKey, record.ts);
        const size = userText.length + answerText.length;
        if (chars + size > maxChars) break;
        chars += size;
        const { traceId, sessionKey, senderId, ts, outcome, toolSequence, topicKey, trusted } = record;
        sources.push({
          traceId,
          sessionKey,
          senderId,
          agentId,
          ts,
          outcome,
          toolSequence,
          topicKey,
          trusted,
          userText,
          answerText,
        });
      }
      return sources;
    },
    admit: (candidate) => procedures.admit(candidate),
    markPassed: (agentId, ts) => port.markPassed(agentId, ts),
  };
}
