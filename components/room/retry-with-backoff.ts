/**
 * How long to wait before retry number `retry` (0 for the first): doubling from `firstMs`,
 * never longer than `maxMs`, so a page that keeps trying does not go quiet for minutes.
 */
export function backoffDelay(retry: number, firstMs = 500, maxMs = 8000): number {
  return Math.min(firstMs * 2 ** retry, maxMs);
}

export interface RetryOptions {
  /** Ends the retries, the wait between them and the attempt under way. */
  signal: AbortSignal;
  /** Whether a failure may pass by asking again; any other failure ends the retries. */
  retryable: (error: unknown) => boolean;
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Waits `ms`, or less once `signal` aborts. */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
}

function waitFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}

/**
 * Runs `attempt` until it succeeds, waiting longer after each failure that may pass (see
 * `backoffDelay`). Rejects with the failure that ended it: one not `retryable`, or the
 * signal's reason once it has aborted, rather than what an attempt cut short would say.
 */
export async function retryWithBackoff<T>(attempt: (signal: AbortSignal) => Promise<T>, options: RetryOptions): Promise<T> {
  const { signal, retryable, firstDelayMs, maxDelayMs, wait = waitFor } = options;
  for (let retry = 0; ; retry++) {
    signal.throwIfAborted();
    try {
      return await attempt(signal);
    } catch (error) {
      signal.throwIfAborted();
      if (!retryable(error)) throw error;
    }
    await wait(backoffDelay(retry, firstDelayMs, maxDelayMs), signal);
  }
}
