/** An operation's outcome, announced to screen readers as it changes. */
export function Status({ error, message }: { error?: string | undefined; message?: string | undefined }) {
  if (error !== undefined) return <p className="status error" role="alert">{error}</p>;
  if (message !== undefined) return <p className="status ok" role="status">{message}</p>;
  return null;
}

/** Runs an action and reports it: the message on success, the error's text on failure. */
export async function attempt(action: () => Promise<unknown>, report: (outcome: { error?: string; message?: string }) => void, success: string): Promise<boolean> {
  try {
    await action();
    report({ message: success });
    return true;
  } catch (failure) {
    report({ error: failure instanceof Error ? failure.message : String(failure) });
    return false;
  }
}
