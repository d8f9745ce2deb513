import { describe, expect, it, vi } from "vitest";
import { ApiError, isTransientFailure } from "./api";
import { backoffDelay, retryWithBackoff } from "./retry-with-backoff";

/** A wait that returns at once and remembers how long it was asked to wait. */
function recordedWaits() {
  const delays: number[] = [];
  return { delays, wait: async (ms: number) => void delays.push(ms) };
}

const networkDown = () => new TypeError("Failed to fetch");

describe("retryWithBackoff", () => {
  it("tries again after network failures and server errors, waiting longer each time, until it succeeds", async () => {
    const { delays, wait } = recordedWaits();
    const attempt = vi
      .fn()
      .mockRejectedValueOnce(networkDown())
      .mockRejectedValueOnce(new ApiError(503, "Service Unavailable"))
      .mockRejectedValueOnce(new ApiError(500, "Something went wrong on our side."))
      .mockResolvedValueOnce({ seatId: "s" });
    const signal = new AbortController().signal;
    await expect(retryWithBackoff(attempt, { signal, retryable: isTransientFailure, wait })).resolves.toEqual({ seatId: "s" });
    expect(attempt).toHaveBeenCalledTimes(4);
    expect(attempt).toHaveBeenCalledWith(signal);
    expect(delays).toEqual([500, 1000, 2000]);
  });

  it.each([400, 403, 404, 409])("stops at a %i, which asking again would not change", async (status) => {
    const { delays, wait } = recordedWaits();
    const refusal = new ApiError(status, "Open event stream not found.");
    const attempt = vi.fn().mockRejectedValueOnce(networkDown()).mockRejectedValue(refusal);
    await expect(retryWithBackoff(attempt, { signal: new AbortController().signal, retryable: isTransientFailure, wait })).rejects.toBe(
      refusal,
    );
    expect(attempt).toHaveBeenCalledTimes(2);
    expect(delays).toEqual([500]);
  });

  it("stops when cancelled while it waits to try again", async () => {
    const controller = new AbortController();
    const attempt = vi.fn().mockRejectedValue(new ApiError(503, "Service Unavailable"));
    const wait = vi.fn(async () => controller.abort());
    await expect(retryWithBackoff(attempt, { signal: controller.signal, retryable: isTransientFailure, wait })).rejects.toThrow(/abort/i);
    expect(attempt).toHaveBeenCalledTimes(1);
    expect(wait).toHaveBeenCalledTimes(1);
  });

  it("stops when cancelled during an attempt, whatever that attempt then answers", async () => {
    const controller = new AbortController();
    const { delays, wait } = recordedWaits();
    const attempt = vi.fn(async (signal: AbortSignal) => {
      controller.abort();
      expect(signal.aborted).toBe(true);
      throw new ApiError(503, "Service Unavailable");
    });
    await expect(retryWithBackoff(attempt, { signal: controller.signal, retryable: isTransientFailure, wait })).rejects.toThrow(/abort/i);
    expect(attempt).toHaveBeenCalledTimes(1);
    expect(delays).toEqual([]);
  });

  it("makes no attempt once already cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const attempt = vi.fn();
    await expect(retryWithBackoff(attempt, { signal: controller.signal, retryable: () => true })).rejects.toThrow(/abort/i);
    expect(attempt).not.toHaveBeenCalled();
  });

  it("caps the wait between attempts", async () => {
    const { delays, wait } = recordedWaits();
    const attempt = vi.fn();
    for (let failure = 0; failure < 8; failure++) attempt.mockRejectedValueOnce(networkDown());
    attempt.mockResolvedValueOnce("counted");
    await expect(retryWithBackoff(attempt, { signal: new AbortController().signal, retryable: isTransientFailure, wait })).resolves.toBe(
      "counted",
    );
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000, 8000]);
  });

  it("waits for real between attempts by default, and stops waiting when cancelled", async () => {
    vi.useFakeTimers();
    try {
      const controller = new AbortController();
      const attempt = vi.fn().mockRejectedValue(networkDown());
      const retrying = retryWithBackoff(attempt, { signal: controller.signal, retryable: isTransientFailure });
      const settled = retrying.catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(499);
      expect(attempt).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(attempt).toHaveBeenCalledTimes(2);
      controller.abort();
      expect(String(await settled)).toMatch(/abort/i);
      expect(vi.getTimerCount()).toBe(0);
      expect(attempt).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("backoffDelay", () => {
  it("doubles from the first delay up to the cap", () => {
    expect([0, 1, 2, 3, 4, 5, 60].map((retry) => backoffDelay(retry))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
    expect([0, 1, 2, 3].map((retry) => backoffDelay(retry, 100, 250))).toEqual([100, 200, 250, 250]);
  });
});
