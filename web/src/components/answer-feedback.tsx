// The feedback control under a chat's latest answer: the user says it was right, wrong or corrected (session.feedback).
import { useState } from 'preact/hooks';
import { call, type ParamsOf } from '../lib/rpc';
import { ErrorNotice } from './ui';

type Outcome = ParamsOf<'session.feedback'>['outcome'];

const CHOICES: readonly { outcome: Outcome; label: string }[] = [
  { outcome: 'success', label: 'Good answer' },
  { outcome: 'failure', label: 'Wrong answer' },
  { outcome: 'corrected', label: 'I corrected it' },
];

/** `answerCount` changes with each new answer, which clears the choice made for the previous one. */
export function AnswerFeedback({ sessionKey, answerCount }: { sessionKey: string; answerCount: number }) {
  const [given, setGiven] = useState<{ outcome: Outcome; forAnswer: number } | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const chosen = given?.forAnswer === answerCount ? given.outcome : undefined;

  async function send(outcome: Outcome) {
    setError(undefined);
    try {
      await call('session.feedback', { sessionKey, outcome });
      setGiven({ outcome, forAnswer: answerCount });
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <div class="row" role="group" aria-label="Feedback on the latest answer">
      {CHOICES.map(({ outcome, label }) => (
        <button key={outcome} type="button" aria-pressed={chosen === outcome} onClick={() => void send(outcome)}>
          {label}
        </button>
      ))}
      {chosen === undefined ? null : <span class="muted">Thanks: recorded as {chosen}.</span>}
      <ErrorNotice error={error} />
    </div>
  );
}
