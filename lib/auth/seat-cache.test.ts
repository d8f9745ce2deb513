import { describe, expect, it } from "vitest";
import { seatRow } from "@/test/builders";
import { SeatCache } from "./seat-cache";

const seat = (id: string) => seatRow({ id, roomId: "room", displayName: id, tokenHash: `hash-${id}` });

describe("SeatCache", () => {
  it("returns a remembered seat for the same room and token only", () => {
    const cache = new SeatCache();
    cache.remember("room-a", "token-1", seat("ada"));
    expect(cache.get("room-a", "token-1")?.id).toBe("ada");
    expect(cache.get("room-a", "token-2")).toBeNull();
    expect(cache.get("room-b", "token-1")).toBeNull();
  });

  it("forgets a seat once it is older than the time to live", () => {
    let now = 0;
    const cache = new SeatCache({ ttlMs: 1000, now: () => now });
    cache.remember("room", "token", seat("ada"));
    now = 1000;
    expect(cache.get("room", "token")?.id).toBe("ada");
    now = 1001;
    expect(cache.get("room", "token")).toBeNull();
    expect(cache.size).toBe(0);
  });

  it("keeps at most maxEntries, dropping the least recently remembered", () => {
    const cache = new SeatCache({ maxEntries: 2 });
    cache.remember("room", "a", seat("a"));
    cache.remember("room", "b", seat("b"));
    cache.remember("room", "a", seat("a"));
    cache.remember("room", "c", seat("c"));
    expect(cache.size).toBe(2);
    expect(cache.get("room", "b")).toBeNull();
    expect(cache.get("room", "a")?.id).toBe("a");
    expect(cache.get("room", "c")?.id).toBe("c");
  });

  it("forgets every seat of a deleted room and nothing else", () => {
    const cache = new SeatCache();
    cache.remember("room-a", "1", seat("1"));
    cache.remember("room-a", "2", seat("2"));
    cache.remember("room-ab", "3", seat("3"));
    cache.forgetRoom("room-a");
    expect(cache.get("room-a", "1")).toBeNull();
    expect(cache.get("room-a", "2")).toBeNull();
    expect(cache.get("room-ab", "3")?.id).toBe("3");
  });
});
