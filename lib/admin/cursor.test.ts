import { describe, expect, it } from "vitest";
import { cursorSchema, encodeCursor, pageOf } from "./cursor";

describe("keyset cursors", () => {
  const schema = cursorSchema(["time", "string"]);

  it("read back what a page gave, to the microsecond", () => {
    const cursor = encodeCursor(["2026-11-25T09:18:24.123456Z", "run-1"]);
    expect(schema.parse(cursor)).toEqual(["2026-11-25T09:18:24.123456Z", "run-1"]);
  });

  it("refuse anything else with the same reason", () => {
    for (const bad of ["not-a-cursor", encodeCursor(["yesterday", "run-1"]), encodeCursor(["2026-11-25T09:18:24Z"]), encodeCursor(["2026-11-25T09:18:24Z", ""]), encodeCursor([1, "x"])]) {
      const parsed = schema.safeParse(bad);
      expect(parsed.success, bad).toBe(false);
      expect(parsed.error!.issues[0]!.message).toBe("cursor must be the nextCursor of an earlier page");
    }
  });

  it("page rows read with one extra: the next cursor only when more follow", () => {
    const rows = [{ id: "a" }, { id: "b" }, { id: "c" }];
    expect(pageOf(rows, 2, (row) => row.id, (row) => [row.id])).toEqual({ items: ["a", "b"], nextCursor: encodeCursor(["b"]) });
    expect(pageOf(rows, 3, (row) => row.id, (row) => [row.id])).toEqual({ items: ["a", "b", "c"], nextCursor: null });
  });
});
