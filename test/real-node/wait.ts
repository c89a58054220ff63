// Polling with a deadline: the only way these tests wait (never a fixed sleep).

export interface WaitOptions {
  timeoutMs: number;
  intervalMs?: number;
  /** Named in the timeout error. */
  what: string;
}

/**
 * Calls `check` until it returns a value other than `false`/`undefined`, and returns that value.
 * An error thrown by `check` stops the wait and propagates. Rejects when the deadline passes.
 */
export async function waitFor<T>(
  check: () => Promise<T | false | undefined> | T | false | undefined,
  { timeoutMs, intervalMs = 500, what }: WaitOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const value = await check();
    if (value !== false && value !== undefined) return value;
    last = value;
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last result: ${String(last)})`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
}
