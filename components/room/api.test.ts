import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError, apiRequest, apiWrite, isTransientFailure } from "./api";

// Retries wait on timers; the tests move the clock instead of waiting for it.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/** Settles `work`, running the timers it waits on. */
async function settled<T>(work: Promise<T>): Promise<T> {
  const outcome = work.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await vi.runAllTimersAsync();
  const result = await outcome;
  if ("error" in result) throw result.error;
  return result.value;
}

/** The Idempotency-Key header of each request `fetch` was given. */
function keysSent(fetch: ReturnType<typeof vi.fn>): string[] {
  return fetch.mock.calls.map(([, init]) => (init as RequestInit & { headers: Record<string, string> }).headers["idempotency-key"]!);
}

describe("apiWrite", () => {
  it("sends an answer with an idempotency key and keeps that key when it retries after a network failure", async () => {
    const fetch = vi
      .fn()
      .mockRejectedValueOnce(new TypeError("Failed to fetch"))
      .mockResolvedValueOnce(Response.json({ response: { id: "a1" } }, { status: 201 }));
    vi.stubGlobal("fetch", fetch);
    await expect(settled(apiWrite("/api/rooms/r/broadcasts/b/answer", "POST", { answer: "Rain" }))).resolves.toEqual({
      response: { id: "a1" },
    });
    const [first, retry] = keysSent(fetch);
    expect(first).toMatch(/\S{16,}/);
    expect(retry).toBe(first);
  });

  it("gives every new write a key of its own, and reports the server's refusal", async () => {
    const fetch = vi
      .fn()
      .mockResolvedValueOnce(Response.json({ broadcastId: "b", status: "skipped" }))
      .mockResolvedValueOnce(Response.json({ error: { message: "This question is no longer open (skipped)." } }, { status: 409 }));
    vi.stubGlobal("fetch", fetch);
    await apiWrite("/api/rooms/r/broadcasts/b/skip", "POST");
    await expect(apiWrite("/api/rooms/r/broadcasts/b/skip", "POST")).rejects.toEqual(
      new ApiError(409, "This question is no longer open (skipped)."),
    );
    const [first, second] = keysSent(fetch);
    expect(second).not.toBe(first);
  });
});

describe("apiWrite after a server error", () => {
  it("asks again with the same key when the server (or a proxy in front of it) failed", async () => {
    const fetch = vi
      .fn()
      .mockResolvedValueOnce(new Response("<html>Bad gateway</html>", { status: 502, statusText: "Bad Gateway" }))
      .mockResolvedValueOnce(Response.json({ error: { message: "Something went wrong on our side." } }, { status: 500 }))
      .mockResolvedValueOnce(Response.json({ node: { id: "n1" } }, { status: 201 }));
    vi.stubGlobal("fetch", fetch);
    await expect(settled(apiWrite("/api/rooms/r/nodes", "POST", { text: "Rain" }))).resolves.toEqual({ node: { id: "n1" } });
    const keys = keysSent(fetch);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
  });

  it("gives up with the last failure after its retries, and never retries a refusal", async () => {
    const unavailable = vi.fn().mockImplementation(async () => new Response("", { status: 503, statusText: "Service Unavailable" }));
    vi.stubGlobal("fetch", unavailable);
    const failing = apiWrite("/api/rooms/r/nodes", "POST", { text: "Rain" }).catch((error: unknown) => error);
    await vi.runAllTimersAsync();
    expect(await failing).toEqual(new ApiError(503, "Service Unavailable"));
    expect(unavailable).toHaveBeenCalledTimes(4);

    const refused = vi.fn().mockResolvedValue(Response.json({ error: { message: "Take a seat to change the canvas." } }, { status: 403 }));
    vi.stubGlobal("fetch", refused);
    await expect(apiWrite("/api/rooms/r/nodes", "POST", { text: "Rain" })).rejects.toEqual(
      new ApiError(403, "Take a seat to change the canvas."),
    );
    expect(refused).toHaveBeenCalledTimes(1);
  });
});

describe("apiRequest", () => {
  it("asks once, with the caller's signal, leaving retries to the caller", async () => {
    const fetch = vi.fn().mockRejectedValue(new TypeError("Failed to fetch"));
    vi.stubGlobal("fetch", fetch);
    const { signal } = new AbortController();
    const failure = await apiRequest("/api/rooms/r/presence", "POST", { connectionId: "c" }, { signal }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect(isTransientFailure(failure)).toBe(true);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(fetch.mock.calls[0]![1]).toMatchObject({ method: "POST", signal, body: JSON.stringify({ connectionId: "c" }) });
  });

  it("reports a refusal by its status, whether or not the body is the server's own", async () => {
    const fetch = vi
      .fn()
      .mockResolvedValueOnce(Response.json({ error: { message: "Open event stream not found." } }, { status: 404 }))
      .mockResolvedValueOnce(new Response("<html>Bad gateway</html>", { status: 502, statusText: "Bad Gateway" }));
    vi.stubGlobal("fetch", fetch);
    const notFound = await apiRequest("/api/rooms/r/presence", "POST", {}).catch((error: unknown) => error);
    expect(notFound).toEqual(new ApiError(404, "Open event stream not found."));
    expect(isTransientFailure(notFound)).toBe(false);
    const badGateway = await apiRequest("/api/rooms/r/presence", "POST", {}).catch((error: unknown) => error);
    expect(badGateway).toEqual(new ApiError(502, "Bad Gateway"));
    expect(isTransientFailure(badGateway)).toBe(true);
  });
});
