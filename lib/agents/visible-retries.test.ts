import { APICallError } from "@ai-sdk/provider";
import { MockLanguageModelV4, convertArrayToReadableStream, convertReadableStreamToArray } from "ai/test";
import { describe, expect, it } from "vitest";
import {
  ModelCallTimeoutError,
  type RetryNotice,
  providerErrorDetails,
  requestedWait,
  retryDelay,
  withVisibleRetries,
} from "./visible-retries";

const failure = (statusCode: number, headers: Record<string, string> = {}) =>
  new APICallError({
    message: "upstream",
    url: "http://p/v1",
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    isRetryable: statusCode === 429 || statusCode >= 500,
  });

describe("visible retries", () => {
  it("waits about 1, 4 and 16 s (±20%), then gives up", () => {
    const delays = [1000, 4000, 16_000];
    expect(retryDelay(failure(503), 0, delays, () => 0)).toBe(800);
    expect(retryDelay(failure(503), 0, delays, () => 1)).toBe(1200);
    expect(retryDelay(failure(503), 1, delays, () => 0.5)).toBe(4000);
    expect(retryDelay(failure(429), 2, delays, () => 0.5)).toBe(16_000);
    expect(retryDelay(failure(503), 3, delays, () => 0.5)).toBeNull();
  });

  it("does not retry what would fail again", () => {
    expect(retryDelay(failure(400), 0, [1000])).toBeNull();
    expect(retryDelay(failure(401), 0, [1000])).toBeNull();
    expect(retryDelay(new Error("bug"), 0, [1000])).toBeNull();
  });

  it("honours Retry-After up to 60 s", () => {
    expect(retryDelay(failure(429, { "retry-after": "7" }), 0, [1000])).toBe(7000);
    expect(retryDelay(failure(429, { "Retry-After": "600" }), 0, [1000])).toBe(60_000);
    expect(retryDelay(failure(503, { "retry-after-ms": "250" }), 0, [1000])).toBe(250);
    expect(requestedWait(failure(429, { "retry-after": new Date(10_000).toUTCString() }), 4000)).toBe(6000);
    expect(requestedWait(failure(429, { "retry-after": "soon" }))).toBeNull();
  });

  it("announces each retry before making it, and fails as the call did after the last", async () => {
    let calls = 0;
    const inner = new MockLanguageModelV4({
      doStream: async () => {
        calls += 1;
        if (calls < 3) throw failure(503);
        return { stream: convertArrayToReadableStream([]) };
      },
    });
    const notices: RetryNotice[] = [];
    const model = withVisibleRetries(inner, { delays: [1, 2, 3], onRetry: async (notice) => void notices.push(notice), random: () => 0.5 });
    await model.doStream({ prompt: [] });
    expect(calls).toBe(3);
    expect(notices.map((notice) => [notice.retry, notice.of, notice.delayMs, notice.error.error_type])).toEqual([
      [1, 3, 1, "provider_error"],
      [2, 3, 2, "provider_error"],
    ]);

    const always = withVisibleRetries(new MockLanguageModelV4({ doStream: async () => Promise.reject(failure(500)) }), {
      delays: [1, 1],
      onRetry: async () => {},
    });
    await expect(always.doStream({ prompt: [] })).rejects.toMatchObject({ statusCode: 500 });
  });

  it("times out a call whose provider does not answer, aborts its request, and retries it as a passing failure", async () => {
    const signals: AbortSignal[] = [];
    let calls = 0;
    const inner = new MockLanguageModelV4({
      doStream: async ({ abortSignal }) => {
        calls += 1;
        signals.push(abortSignal!);
        // The first call hangs, as a provider that never answers does.
        if (calls === 1) return new Promise<never>(() => {});
        return { stream: convertArrayToReadableStream([{ type: "text-start", id: "t" }]) };
      },
    });
    const notices: RetryNotice[] = [];
    const model = withVisibleRetries(inner, { delays: [1], timeoutMs: 30, onRetry: async (notice) => void notices.push(notice) });
    const { stream } = await model.doStream({ prompt: [] });
    expect(await convertReadableStreamToArray(stream)).toEqual([{ type: "text-start", id: "t" }]);
    expect(calls).toBe(2);
    expect(signals[0]!.aborted).toBe(true);
    expect(signals[0]!.reason).toBeInstanceOf(ModelCallTimeoutError);
    expect(notices).toEqual([
      {
        retry: 1,
        of: 1,
        delayMs: expect.any(Number),
        error: { error_type: "timeout", error_message: "The model did not answer within 0.03 s.", retry_possible: true },
      },
    ]);
  });

  it("fails a stream that stalls longer than the timeout while it is read, and not while its reader is busy", async () => {
    let release!: () => void;
    const stalled = new ReadableStream({
      start(controller) {
        controller.enqueue({ type: "text-start", id: "t" });
        release = () => controller.enqueue({ type: "text-end", id: "t" });
      },
    });
    const model = withVisibleRetries(new MockLanguageModelV4({ doStream: async () => ({ stream: stalled }) }), {
      delays: [],
      timeoutMs: 40,
      onRetry: async () => {},
    });
    const reader = (await model.doStream({ prompt: [] })).stream.getReader();
    expect(await reader.read()).toEqual({ done: false, value: { type: "text-start", id: "t" } });
    // Longer than the timeout between reads: the reader's own time does not count.
    await new Promise((resolve) => setTimeout(resolve, 80));
    release();
    expect(await reader.read()).toEqual({ done: false, value: { type: "text-end", id: "t" } });
    await expect(reader.read()).rejects.toBeInstanceOf(ModelCallTimeoutError);
  });

  it("does not claim a stream that stalled after its answer began may be retried, and does not retry it", async () => {
    let calls = 0;
    const retries: RetryNotice[] = [];
    const model = withVisibleRetries(
      new MockLanguageModelV4({
        doStream: async () => {
          calls += 1;
          return {
            stream: new ReadableStream({
              start(controller) {
                controller.enqueue({ type: "text-start", id: "t" });
                controller.enqueue({ type: "text-delta", id: "t", delta: "The harbour" });
              },
            }),
          };
        },
      }),
      { delays: [1, 1, 1], timeoutMs: 40, onRetry: async (notice) => void retries.push(notice) },
    );
    const reader = (await model.doStream({ prompt: [] })).stream.getReader();
    await reader.read();
    await reader.read();
    const failure = await reader.read().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelCallTimeoutError);
    expect(providerErrorDetails(failure as ModelCallTimeoutError)).toEqual({
      error_type: "timeout",
      error_message: "The model stopped answering partway: nothing more came for 0.04 s.",
      retry_possible: false,
    });
    expect(retryDelay(failure, 0, [1, 1, 1])).toBeNull();
    expect(calls).toBe(1);
    expect(retries).toEqual([]);
  });
});
