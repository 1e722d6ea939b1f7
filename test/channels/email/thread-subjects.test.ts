// The email adapter's per-thread subjects: "Re: <subject>" once, one header line, and bounded (oldest thread forgotten).
import { describe, expect, it } from 'vitest';
import { createThreadSubjects } from '../../../src/channels/email/thread-subjects.js';

describe('email thread subjects', () => {
  it('answers "Re: <subject>" once, keeps a subject on one line, and falls back for unknown threads', () => {
    const subjects = createThreadSubjects();
    subjects.remember('<a@x>', 'Plans');
    subjects.remember('<b@x>', 'Re: Plans');
    subjects.remember('<c@x>', 'Two\r\n lines');
    subjects.remember('<d@x>', '');
    expect(subjects.replySubject('<a@x>', 'fallback')).toBe('Re: Plans');
    expect(subjects.replySubject('<b@x>', 'fallback')).toBe('Re: Plans');
    expect(subjects.replySubject('<c@x>', 'fallback')).toBe('Re: Two  lines');
    expect(subjects.replySubject('<d@x>', 'fallback')).toBe('Re: fallback');
    expect(subjects.replySubject('<unknown@x>', 'fallback')).toBe('fallback');
    expect(subjects.replySubject(undefined, 'fallback')).toBe('fallback');
  });

  it('forgets the least recently remembered thread past its capacity', () => {
    const subjects = createThreadSubjects(2);
    subjects.remember('<1@x>', 'one');
    subjects.remember('<2@x>', 'two');
    subjects.remember('<1@x>', 'one again');
    subjects.remember('<3@x>', 'three');
    expect(subjects.replySubject('<2@x>', 'fallback')).toBe('fallback');
    expect(subjects.replySubject('<1@x>', 'fallback')).toBe('Re: one again');
    expect(subjects.replySubject('<3@x>', 'fallback')).toBe('Re: three');
  });
});
