import { useState } from 'react';

export interface Outcome {
  error?: string;
  message?: string;
}

/** An operation's outcome (or that a view is still loading), announced to screen readers as it changes. */
export function Status({ error, message, loading }: Outcome & { loading?: boolean }) {
  if (loading === true) return <p className="status" role="status">Loading…</p>;
  if (error !== undefined) return <p className="status error" role="alert">{error}</p>;
  if (message !== undefined) return <p className="status ok" role="status">{message}</p>;
  return null;
}

/** Runs an action and reports it: the message on success, the error's text on failure. */
export async function attempt(action: () => Promise<unknown>, report: (outcome: Outcome) => void, success: string): Promise<boolean> {
  try {
    await action();
    report({ message: success });
    return true;
  } catch (failure) {
    report({ error: failure instanceof Error ? failure.message : String(failure) });
    return false;
  }
}

/** A view's last outcome, and `run`: an action that reloads the view when it succeeds. */
export function useOutcome(reload: () => void) {
  const [outcome, setOutcome] = useState<Outcome>({});
  const run = (action: () => Promise<unknown>, success: string): void => void attempt(action, setOutcome, success).then((ok) => ok && reload());
  return { outcome, setOutcome, run };
}
