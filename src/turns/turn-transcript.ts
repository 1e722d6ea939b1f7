// The messages of the turn in progress: what the model sees after the history, and what is still to be stored.
import type { TranscriptMessage } from '../providers/index.js';

export interface TurnTranscript {
  /** The current turn's messages (user message, tool calls and results so far); never dropped from the context. */
  readonly freshTail: TranscriptMessage[];
  /** Adds to the turn (and to what is stored next). */
  add(...messages: TranscriptMessage[]): void;
  /** Stores only, without showing it to the model again (a seed, or results of calls a limit stopped). */
  store(...messages: TranscriptMessage[]): void;
  /** Writes what is unsaved in one store call; the turn's transcript is written once per step, not once per message. */
  save(): Promise<void>;
}

export function createTurnTranscript(write: (messages: readonly TranscriptMessage[]) => Promise<void>): TurnTranscript {
  const freshTail: TranscriptMessage[] = [];
  const unsaved: TranscriptMessage[] = [];
  return {
    freshTail,
    add(...messages) {
      freshTail.push(...messages);
      unsaved.push(...messages);
    },
    store(...messages) {
      unsaved.push(...messages);
    },
    async save() {
      if (unsaved.length > 0) await write(unsaved.splice(0));
    },
  };
}
