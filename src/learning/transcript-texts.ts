// Reads one finished turn's user message and answer from its session's transcript (for reflect's synthesis and the
// judge): the texts themselves are never copied into learning's store or evidence.
import type { SessionPort, TranscriptMessage } from '../store/index.js';

/** Newest transcript messages read per session to find a turn's texts; an older turn reads as empty texts. */
export const TRANSCRIPT_READ_MESSAGES = 200;

export interface TurnTexts {
  userText: string;
  answerText: string;
}

/**
 * The turn that ended at `endedAt`: its user message is the last one stored at or before then, its answer the last
 * assistant text after that message and at or before then (a session runs one turn at a time, so the next turn's
 * messages are all later). A turn compacted away or past the read window reads as empty texts.
 */
export function turnTexts(history: readonly TranscriptMessage[], endedAt: number): TurnTexts {
  let userIndex = -1;
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const message = history[index];
    if (message?.role === 'user' && message.timestamp <= endedAt) {
      userIndex = index;
      break;
    }
  }
  if (userIndex < 0) return { userText: '', answerText: '' };
  let answerText = '';
  for (const message of history.slice(userIndex + 1)) {
    if (message.timestamp > endedAt) break;
    if (message.role === 'assistant' && message.content.length > 0) answerText = message.content;
  }
  return { userText: history[userIndex]?.content ?? '', answerText };
}

/** A session's transcript read once per reader for every turn asked of it. */
export function transcriptReader(sessions: Pick<SessionPort, 'history'>) {
  const read = new Map<string, Promise<TranscriptMessage[]>>();
  return (sessionKey: string, endedAt: number): Promise<TurnTexts> => {
    let history = read.get(sessionKey);
    if (history === undefined) {
      history = sessions.history(sessionKey, TRANSCRIPT_READ_MESSAGES).catch(() => []);
      read.set(sessionKey, history);
    }
    return history.then((messages) => turnTexts(messages, endedAt));
  };
}
