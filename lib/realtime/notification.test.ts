import { describe, expect, it } from "vitest";
import { storedEvent } from "@/test/builders";
import { MAX_NOTIFICATION_BYTES, decodeNotification, encodeEphemeralNotification, encodeStoredNotification } from "./notification";

const event = (seq: number, text: string) => storedEvent("edge.deleted", { edgeId: text }, { seq });

describe("notifications", () => {
  it("inline small events and round-trip them", () => {
    const encoded = encodeStoredNotification("r", [event(4, "a"), event(5, "b")]);
    expect(decodeNotification(encoded)).toEqual({ k: "stored", room: "r", from: 4, to: 5, events: [event(4, "a"), event(5, "b")] });
  });

  it("leave out events too large for PostgreSQL's limit, keeping the range to read back", () => {
    const encoded = encodeStoredNotification("r", [event(9, "x".repeat(MAX_NOTIFICATION_BYTES))]);
    expect(Buffer.byteLength(encoded)).toBeLessThan(8000);
    expect(decodeNotification(encoded)).toEqual({ k: "stored", room: "r", from: 9, to: 9 });
  });

  it("drop ephemeral signals too large to send, and ignore foreign payloads", () => {
    const big = { type: "agent.typing", room_id: "r", payload: { runId: "x", agentId: "a", step: 0, delta: "x".repeat(9000) } } as const;
    expect(encodeEphemeralNotification(big)).toBeNull();
    expect(decodeNotification("not json")).toBeNull();
    expect(decodeNotification(JSON.stringify({ k: "other", room: "r" }))).toBeNull();
  });
});
