// Loads data for a page with loading and error states; reloads on demand, when its keys change and after a reconnect.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { onReconnect } from './rpc';

export interface AsyncState<T> {
  data: T | undefined;
  error: unknown;
  isLoading: boolean;
  reload: () => void;
}

export function useAsync<T>(load: () => Promise<T>, keys: readonly unknown[]): AsyncState<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [isLoading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let isCurrent = true;
    setLoading(true);
    loadRef.current().then(
      (value) => {
        if (!isCurrent) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (!isCurrent) return;
        setError(failure);
        setLoading(false);
      },
    );
    return () => {
      isCurrent = false;
    };
  }, [...keys, tick]);
  const reload = useCallback(() => setTick((value) => value + 1), []);
  useEffect(() => onReconnect(reload), [reload]);
  return { data, error, isLoading, reload };
}
