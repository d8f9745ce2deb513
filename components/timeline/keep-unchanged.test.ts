import { describe, expect, it } from "vitest";
import { keepUnchanged } from "./keep-unchanged";

describe("keeping what did not change between two moments", () => {
  it("gives back the earlier objects where the values are the same, and new ones only where they differ", () => {
    const before = {
      nodes: { a: { id: "a", text: "Rain", at: { x: 1, y: 2 } }, b: { id: "b", text: "Neon", at: { x: 3, y: 4 } } },
      feed: [{ seq: 1 }, { seq: 2 }],
      lastSeq: 2,
    };
    const next = {
      nodes: { a: { id: "a", text: "Rain", at: { x: 1, y: 2 } }, b: { id: "b", text: "Neon signs", at: { x: 3, y: 4 } } },
      feed: [{ seq: 1 }, { seq: 2 }, { seq: 3 }],
      lastSeq: 3,
    };
    const kept = keepUnchanged(before, next);
    expect(kept).toEqual(next);
    expect(kept.nodes.a).toBe(before.nodes.a);
    expect(kept.nodes.b).not.toBe(before.nodes.b);
    expect(kept.nodes.b.at).toBe(before.nodes.b.at);
    expect(kept.feed[0]).toBe(before.feed[0]);
    expect(kept.feed).not.toBe(before.feed);
  });

  it("gives back the earlier state itself when nothing differs, and lets removed and added keys through", () => {
    const before: { nodes: Record<string, { id: string }>; runs: number[] } = { nodes: { a: { id: "a" } }, runs: [1, 2] };
    expect(keepUnchanged(before, structuredClone(before))).toBe(before);
    const removed = keepUnchanged(before, { nodes: {}, runs: [1, 2] });
    expect(removed).toEqual({ nodes: {}, runs: [1, 2] });
    expect(removed.runs).toBe(before.runs);
    const added = keepUnchanged<Record<string, unknown>>({ a: 1 }, { a: 1, b: undefined });
    expect(added).toEqual({ a: 1, b: undefined });
    expect("b" in added).toBe(true);
  });

  it("does not mistake an array for an object with the same keys, nor null for an object", () => {
    const before: { value: unknown } = { value: { 0: "x" } };
    expect(Array.isArray(keepUnchanged(before, { value: ["x"] }).value)).toBe(true);
    expect(keepUnchanged({ value: { a: 1 } as unknown }, { value: null }).value).toBeNull();
  });
});

describe("keeping the entries of a list that moved on", () => {
  it("matches entries by id or sequence number, not by place", () => {
    const before = {
      feed: [
        { seq: 1, text: "a" },
        { seq: 2, text: "b" },
        { seq: 3, text: "c" },
      ],
    };
    const next = {
      feed: [
        { seq: 2, text: "b" },
        { seq: 3, text: "c" },
        { seq: 4, text: "d" },
      ],
    };
    const kept = keepUnchanged(before, next);
    expect(kept).toEqual(next);
    expect(kept.feed[0]).toBe(before.feed[1]);
    expect(kept.feed[1]).toBe(before.feed[2]);
    const agents = [{ id: "x", name: "Songwriter" }];
    expect(
      keepUnchanged(
        { agents },
        {
          agents: [
            { id: "y", name: "Poet" },
            { id: "x", name: "Songwriter" },
          ],
        },
      ).agents[1],
    ).toBe(agents[0]);
  });
});
