import { useCallback, useEffect, useState } from 'react';

export interface AsyncState<T> {
  value: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` now and whenever `reload` is called, keeping its last value and error. */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): AsyncState<T> {
  const [value, setValue] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  const run = useCallback(load, deps);
  useEffect(() => {
    let current = true;
    setLoading(true);
    run()
      .then((next) => {
        if (!current) return;
        setValue(next);
        setError(undefined);
      })
      .catch((failure: unknown) => current && setError(failure instanceof Error ? failure.message : String(failure)))
      .finally(() => current && setLoading(false));
    return () => {
      current = false;
    };
  }, [run, round]);
  return { value, error, loading, reload: () => setRound((n) => n + 1) };
}
