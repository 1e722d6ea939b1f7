// A form's submission: busy while its action runs, and the failure it ended with (cleared when the next one starts).
import { useState } from 'preact/hooks';

export function useSubmission() {
  const [error, setError] = useState<unknown>(undefined);
  const [isBusy, setBusy] = useState(false);
  async function submitWith(action: () => Promise<void>): Promise<void> {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }
  return { error, isBusy, submitWith };
}
