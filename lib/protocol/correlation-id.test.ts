import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createCorrelationId, isCorrelationId } from "./correlation-id";

describe("createCorrelationId", () => {
  it("follows {scope}_{subject hash}_{timestamp}_{random} with a real sha256 of the subject", () => {
    const now = new Date("2026-11-22T10:30:00.000Z");
    const id = createCorrelationId({ scope: "room-42", subject: "Write a verse", now, random: () => "0123456789abcdef" });
    const hash = createHash("sha256").update("Write a verse").digest("hex").slice(0, 12);
    expect(id).toBe(`room-42_${hash}_${now.getTime()}_0123456789abcdef`);
    expect(isCorrelationId(id)).toBe(true);
  });

  it("sanitises and shortens the scope", () => {
    const id = createCorrelationId({ scope: "a room/with spaces and a very long name indeed", subject: "x", random: () => "abcdef12" });
    expect(id.split("_")[0]).toBe("a-room-with-spaces-and-a");
    expect(createCorrelationId({ scope: "", subject: "x" }).startsWith("parley_")).toBe(true);
  });

  it("differs for the same subject in the same millisecond (collision-safe)", () => {
    const now = new Date();
    const ids = new Set(Array.from({ length: 10_000 }, () => createCorrelationId({ scope: "room", subject: "same", now })));
    expect(ids.size).toBe(10_000);
  });

  it("recognises only well-formed ids", () => {
    expect(isCorrelationId("session_user_1692633600_a7b2c9d4_1692633612")).toBe(false);
    expect(isCorrelationId("room_zzzzzzzzzzzz_1763807400123_9c1e4f7a")).toBe(false);
    expect(isCorrelationId("room_0123456789ab_1763807400123_9c1e4f7a")).toBe(true);
  });
});
