// The subject of each email thread the gateway answers in, so replies read "Re: <original subject>"; bounded, oldest
// thread forgotten first.
export interface ThreadSubjects {
  remember(threadId: string, subject: string): void;
  /** "Re: <subject>" for a known thread; `fallback` for an unknown one (a heartbeat, channels.send, after a restart). */
  replySubject(threadId: string | undefined, fallback: string): string;
}

/** Threads whose subject is kept; a reply in a thread forgotten past this gets the fallback subject. */
export const maxRememberedThreads = 10_000;

/** Subjects longer than this are cut: they go into a header line, and the sender chose them. */
const maxSubjectChars = 250;

export function createThreadSubjects(capacity = maxRememberedThreads): ThreadSubjects {
  const subjects = new Map<string, string>();
  return {
    remember(threadId, subject) {
      subjects.delete(threadId);
      subjects.set(
        threadId,
        subject
          .replace(/[\r\n]+/g, ' ')
          .trim()
          .slice(0, maxSubjectChars),
      );
      while (subjects.size > capacity) {
        const oldest = subjects.keys().next();
        if (oldest.done === true) break;
        subjects.delete(oldest.value);
      }
    },
    replySubject(threadId, fallback) {
      const subject = threadId === undefined ? undefined : subjects.get(threadId);
      if (subject === undefined) return fallback;
      return /^re:/i.test(subject) ? subject : `Re: ${subject === '' ? fallback : subject}`;
    },
  };
}
