import type { LanguageModelV4 } from "@ai-sdk/provider";
import { APICallError } from "@ai-sdk/provider";
import type { ErrorDetails } from "@/lib/protocol";

/** How long to wait before each retry of a model call that failed for a passing reason: about 1, 4 and 16 s. */
export const RETRY_DELAYS_MS = [1000, 4000, 16_000] as const;
/** A provider's `Retry-After` is honoured up to this. */
export const MAX_RETRY_AFTER_MS = 60_000;
/** Each delay is moved by up to this share either way, so many runs retrying at once do not retry in step. */
const JITTER = 0.2;

/** Whether a failed model call may succeed if made again: rate limits, server errors, timeouts, dropped connections. */
export function isRetryable(error: unknown): error is APICallError {
  return APICallError.isInstance(error) && (error.isRetryable || error.statusCode === 429 || (error.statusCode ?? 0) >= 500);
}

/** The wait a provider asked for, in milliseconds (`retry-after-ms`, or `Retry-After` in seconds or as a date). */
export function requestedWait(error: APICallError, now = Date.now()): number | null {
  const headers = Object.fromEntries(Object.entries(error.responseHeaders ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  const ms = Number(headers["retry-after-ms"]);
  if (headers["retry-after-ms"] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers["retry-after"];
  if (after === undefined) return null;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * The wait before retry number `retry` (0 for the first) of a failed call, or null when the
 * failure is not worth retrying or the retries are spent.
 */
export function retryDelay(error: unknown, retry: number, delays: readonly number[], random: () => number = Math.random): number | null {
  if (!isRetryable(error) || retry >= delays.length) return null;
  const asked = requestedWait(error);
  if (asked !== null) return Math.min(asked, MAX_RETRY_AFTER_MS);
  return Math.round(delays[retry]! * (1 - JITTER + 2 * JITTER * random()));
}

/** What went wrong with a model call, as the protocol reports it. */
export function providerErrorDetails(error: APICallError): ErrorDetails {
  return {
    errorType: error.statusCode === 429 ? "rate_limited" : "provider_error",
    errorMessage: `${error.message}${error.statusCode ? ` (HTTP ${error.statusCode})` : ""}`.slice(0, 500),
    retryPossible: error.isRetryable,
  };
}

export interface RetryNotice {
  /** 1 for the first retry. */
  retry: number;
  of: number;
  delayMs: number;
  error: ErrorDetails;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A model whose calls that fail for a passing reason are made again after `delays`, each retry
 * announced first (`onRetry`), so none is hidden: the AI SDK's own silent retries are turned
 * off where this is used. A call that fails after its last retry fails as it did.
 */
export function withVisibleRetries(
  model: LanguageModelV4,
  options: { delays: readonly number[]; onRetry: (notice: RetryNotice) => Promise<void>; random?: () => number },
): LanguageModelV4 {
  const retried = async <T>(call: () => PromiseLike<T>, signal: AbortSignal | undefined): Promise<T> => {
    for (let retry = 0; ; retry++) {
      try {
        return await call();
      } catch (error) {
        const delayMs = retryDelay(error, retry, options.delays, options.random);
        if (delayMs === null || signal?.aborted) throw error;
        await options.onRetry({ retry: retry + 1, of: options.delays.length, delayMs, error: providerErrorDetails(error as APICallError) });
        await sleep(delayMs, signal);
      }
    }
  };
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (callOptions) => retried(() => model.doGenerate(callOptions), callOptions.abortSignal),
    doStream: (callOptions) => retried(() => model.doStream(callOptions), callOptions.abortSignal),
  };
}
