import { describe, expect, it } from "vitest";
import type { EventRow } from "@/db/schema";
import { storedEventSchema } from "@/lib/protocol";
import { eventFromRow } from "./event-row";

function row(overrides: Partial<EventRow>): EventRow {
  return {
    id: "e1",
    roomId: "r1",
    seq: 7,
    correlationId: "room_0123456789ab_1763807400123_9c1e4f7a",
    causationId: null,
    traceParent: null,
    agent: "a1",
    agentName: "Songwriter",
    targetAgent: null,
    type: "run.retrying",
    status: "pending",
    payload: {},
    nextSteps: [],
    errorDetails: null,
    idempotencyKey: null,
    idempotencyFingerprint: null,
    createdAt: new Date("2026-11-22T10:30:00.000Z"),
    ...overrides,
  };
}

const camelCase = { errorType: "provider_error", errorMessage: "upstream is busy (HTTP 503)", retryPossible: true };
const snakeCase = { error_type: "provider_error", error_message: "upstream is busy (HTTP 503)", retry_possible: true };
const retrying = { runId: "run1", agentId: "a1", step: 0, retry: 1, of: 3, delayMs: 1000 };
const finished = {
  runId: "run1",
  agentId: "a1",
  status: "failed",
  steps: 0,
  attempts: 1,
  durationMs: 5,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
};

describe("a stored event as the protocol serves it", () => {
  it("names error details error_type, error_message and retry_possible, in the envelope and in the payload", () => {
    const event = eventFromRow(row({ errorDetails: snakeCase, payload: { ...retrying, error: snakeCase } }));
    expect(event).toMatchObject({ error_details: snakeCase, payload: { error: snakeCase } });
    expect(storedEventSchema.safeParse(event).success).toBe(true);
    // The names the protocol had before are not the protocol's.
    expect(storedEventSchema.safeParse({ ...event, error_details: camelCase }).success).toBe(false);
    expect(storedEventSchema.safeParse({ ...event, payload: { ...retrying, error: camelCase } }).success).toBe(false);
  });

  it("reads the camelCase error details of rows stored before in the protocol's names", () => {
    for (const [type, payload] of [
      ["run.retrying", { ...retrying, error: camelCase }],
      ["run.finished", { ...finished, error: camelCase }],
      ["broadcast.retrying", { broadcastId: "b1", responderId: "a2", retry: 1, of: 3, delayMs: 1000, error: camelCase }],
    ] as const) {
      const event = eventFromRow(row({ type, status: "error", errorDetails: camelCase, payload }));
      expect(event.error_details, type).toEqual(snakeCase);
      expect((event.payload as { error: unknown }).error, type).toEqual(snakeCase);
      expect(storedEventSchema.safeParse(event).success, type).toBe(true);
    }
    const succeeded = eventFromRow(
      row({ type: "run.finished", status: "success", payload: { ...finished, status: "succeeded", error: null } }),
    );
    expect(succeeded).toMatchObject({ error_details: null, payload: { error: null } });
  });

  it("leaves alone a payload whose `error` is not error details", () => {
    const payload = { error: "a reason in words" };
    expect(eventFromRow(row({ type: "node.created", status: "success", payload })).payload).toBe(payload);
  });
});
