import { describe, expect, it } from "vitest";
import { FEED_WINDOW, earlierStart, feedWindowStart, timeOfDay } from "./feed-window";

const seqs = (count: number, from = 1) => Array.from({ length: count }, (_, index) => from + index);

describe("the part of the feed drawn", () => {
  it("is the whole feed while it is short", () => {
    expect(feedWindowStart(seqs(10), null, null)).toBe(0);
  });

  it("is the newest entries of a long feed", () => {
    expect(feedWindowStart(seqs(300), null, null)).toBe(300 - FEED_WINDOW);
    expect(feedWindowStart(seqs(300), null, null, 5)).toBe(295);
  });

  it("reaches back to the oldest entry asked for while the feed holds it", () => {
    expect(feedWindowStart(seqs(300, 101), 151, null)).toBe(50);
    // An entry the feed no longer holds (a jump elsewhere in the history): the newest entries again.
    expect(feedWindowStart(seqs(300, 101), 42, null)).toBe(300 - FEED_WINDOW);
  });

  it("never asks for fewer than the newest entries", () => {
    expect(feedWindowStart(seqs(300), 299, null)).toBe(300 - FEED_WINDOW);
  });

  it("reaches back to the entry in focus", () => {
    expect(feedWindowStart(seqs(300), null, 3)).toBe(2);
    expect(feedWindowStart(seqs(300), 100, 3)).toBe(2);
    expect(feedWindowStart(seqs(300), null, 9999)).toBe(300 - FEED_WINDOW);
  });

  it("shows earlier entries a window at a time, down to the first", () => {
    expect(earlierStart(seqs(300, 11), 240, 60)).toBe(191);
    expect(earlierStart(seqs(300, 11), 30, 60)).toBe(11);
    expect(earlierStart([], 0, 60)).toBeNull();
  });
});

describe("an entry's time", () => {
  it("is the time of day by the viewer's clock, as toLocaleTimeString writes it", () => {
    const iso = "2026-03-01T14:03:27.000Z";
    expect(timeOfDay(iso)).toBe(new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }));
    expect(timeOfDay("2026-03-01T09:00:05.000Z")).not.toBe(timeOfDay(iso));
  });
});
