import type { LanguageModelV4 } from "@ai-sdk/provider";
import { APICallError } from "@ai-sdk/provider";
import type { ErrorDetails } from "@/lib/protocol";

/** How long to wait before each retry of a model call that failed for a passing reason: about 1, 4 and 16 s. */
export const RETRY_DELAYS_MS = [1000, 4000, 16_000] as const;
/** A provider's `Retry-After` is honoured up to this. */
const MAX_RETRY_AFTER_MS = 60_000;
/** Each delay is moved by up to this share either way, so many runs retrying at once do not retry in step. */
const JITTER = 0.2;

/**
 * How long one model call may wait for its provider before it counts as timed out (and is
 * retried): for the answer to begin, and then between one piece of a streamed answer and the
 * next. `PARLEY_MODEL_TIMEOUT_SECONDS` sets it for an instance.
 */
export const MODEL_CALL_TIMEOUT_MS = 120_000;

/**
 * A model call whose provider did not answer in time: before its answer began (`partway` false,
 * retried), or, once it had begun, by going quiet (`partway` true). What was streamed of the
 * answer has been shown and acted on already, so the call is not made again then: it fails, and
 * says it will not be retried.
 */
export class ModelCallTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    readonly partway = false,
  ) {
    super(
      partway
        ? `The model stopped answering partway: nothing more came for ${timeoutMs / 1000} s.`
        : `The model did not answer within ${timeoutMs / 1000} s.`,
    );
    this.name = "ModelCallTimeoutError";
  }
}

/** Whether a failed model call may succeed if made again: rate limits, server errors, timeouts, dropped connections. */
function isRetryable(error: unknown): error is APICallError | ModelCallTimeoutError {
  if (error instanceof ModelCallTimeoutError) return !error.partway;
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
  const asked = APICallError.isInstance(error) ? requestedWait(error) : null;
  if (asked !== null) return Math.min(asked, MAX_RETRY_AFTER_MS);
  return Math.round(delays[retry]! * (1 - JITTER + 2 * JITTER * random()));
}

/** What went wrong with a model call, as the protocol reports it. */
export function providerErrorDetails(error: APICallError | ModelCallTimeoutError): ErrorDetails {
  if (error instanceof ModelCallTimeoutError)
    return { error_type: "timeout", error_message: error.message, retry_possible: !error.partway };
  return {
    error_type: error.statusCode === 429 ? "rate_limited" : "provider_error",
    error_message: `${error.message}${error.statusCode ? ` (HTTP ${error.statusCode})` : ""}`.slice(0, 500),
    retry_possible: error.isRetryable,
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
 * Calls `call` with a signal that also aborts after `timeoutMs`: the call then fails with a
 * `ModelCallTimeoutError`, whether or not the provider heeds the signal. The returned
 * controller aborts the call's request later (a stream that stalls).
 */
async function withinTime<T>(
  call: (signal: AbortSignal) => PromiseLike<T>,
  outer: AbortSignal | undefined,
  timeoutMs: number,
): Promise<{ result: T; abort: (reason: unknown) => void }> {
  const limit = new AbortController();
  const signal = outer ? AbortSignal.any([outer, limit.signal]) : limit.signal;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new ModelCallTimeoutError(timeoutMs);
      // Rejected first: a provider that heeds the abort fails too, and the race must not take its error.
      reject(error);
      limit.abort(error);
    }, timeoutMs);
  });
  try {
    const result = await Promise.race([call(signal), expired]);
    return { result, abort: (reason) => limit.abort(reason) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A stream that fails with a `ModelCallTimeoutError` (partway: the call is not retried) when its
 * source gives nothing for `timeoutMs` while it is being read (time the reader spends elsewhere
 * does not count).
 */
function withIdleLimit<T>(stream: ReadableStream<T>, timeoutMs: number, abort: (reason: unknown) => void): ReadableStream<T> {
  const reader = stream.getReader();
  return new ReadableStream<T>(
    {
      async pull(controller) {
        let timer: NodeJS.Timeout | undefined;
        const expired = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const error = new ModelCallTimeoutError(timeoutMs, true);
            reject(error);
            abort(error);
          }, timeoutMs);
        });
        try {
          const next = await Promise.race([reader.read(), expired]);
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          reader.cancel(error).catch(() => {});
          throw error;
        } finally {
          clearTimeout(timer);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    // Read only when asked: the wait is the provider's, not the reader's.
    { highWaterMark: 0 },
  );
}

/**
 * A model whose calls that fail for a passing reason are made again after `delays`, each retry
 * announced first (`onRetry`), so none is hidden: the AI SDK's own silent retries are turned
 * off where this is used. A call whose provider does not answer within `timeoutMs` (default
 * `MODEL_CALL_TIMEOUT_MS`) — or whose stream then stalls that long — times out; a call that
 * times out before its answer begins is retried like any passing failure, one whose stream
 * stalls is not (and says so). A call that fails after its last retry fails as it did.
 */
export function withVisibleRetries(
  model: LanguageModelV4,
  options: { delays: readonly number[]; onRetry: (notice: RetryNotice) => Promise<void>; random?: () => number; timeoutMs?: number },
): LanguageModelV4 {
  const timeoutMs = options.timeoutMs ?? MODEL_CALL_TIMEOUT_MS;
  const retried = async <T>(
    call: (signal: AbortSignal) => PromiseLike<T>,
    signal: AbortSignal | undefined,
  ): Promise<{ result: T; abort: (reason: unknown) => void }> => {
    for (let retry = 0; ; retry++) {
      try {
        return await withinTime(call, signal, timeoutMs);
      } catch (error) {
        const delayMs = retryDelay(error, retry, options.delays, options.random);
        if (delayMs === null || signal?.aborted) throw error;
        await options.onRetry({
          retry: retry + 1,
          of: options.delays.length,
          delayMs,
          error: providerErrorDetails(error as APICallError | ModelCallTimeoutError),
        });
        await sleep(delayMs, signal);
      }
    }
  };
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: async (callOptions) =>
      (await retried((abortSignal) => model.doGenerate({ ...callOptions, abortSignal }), callOptions.abortSignal)).result,
    doStream: async (callOptions) => {
      const { result, abort } = await retried((abortSignal) => model.doStream({ ...callOptions, abortSignal }), callOptions.abortSignal);
      return { ...result, stream: withIdleLimit(result.stream, timeoutMs, abort) };
    },
  };
}
