import { describe, expect, it } from "vitest";
import { z } from "zod";
import { encodeKeysetCursor, keysetCursorSchema } from "./keyset-cursor";
import { keysetPage } from "./keyset-page";
import { parseQuery } from "./parse-query";

const schema = z.strictObject({ cursor: keysetCursorSchema.optional(), limit: z.coerce.number().int().min(1).default(10) });
const parse = (query: string) => parseQuery(schema, new URLSearchParams(query));

describe("parseQuery", () => {
  it("reads each parameter once, with the schema's defaults", () => {
    expect(parse("limit=3")).toEqual({ limit: 3 });
    expect(parse("")).toEqual({ limit: 10 });
  });

  it("refuses a parameter given twice, an unknown one (naming those it knows) and a bad value, with a 400", () => {
    expect(() => parse("limit=3&limit=4")).toThrow(expect.objectContaining({ status: 400, message: "limit is given more than once." }));
    expect(() => parse("sort=asc")).toThrow(
      expect.objectContaining({ status: 400, message: "unknown parameter(s) sort; use cursor, limit" }),
    );
    expect(() => parse("limit=0")).toThrow(expect.objectContaining({ status: 400, message: expect.stringMatching(/^limit: /) }));
  });
});

describe("keyset cursors", () => {
  it("come back as the time and id they were made of, whatever characters the id has", () => {
    for (const id of ["finding-1", "wf/ä+ö?=", "🌧 rain"]) {
      const cursor = encodeKeysetCursor({ at: "2026-11-22T10:01:00.123Z", id });
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(parse(`cursor=${cursor}`).cursor).toEqual({ at: "2026-11-22T10:01:00.123Z", id });
    }
  });

  it("keep a time to the microsecond, as the database orders rows", () => {
    const cursor = encodeKeysetCursor({ at: "2026-11-25T09:18:24.123456Z", id: "run-1" });
    expect(parse(`cursor=${cursor}`).cursor).toEqual({ at: "2026-11-25T09:18:24.123456Z", id: "run-1" });
  });

  it("are refused when they are not one", () => {
    const bad = [
      "not a cursor",
      Buffer.from("[1,2]").toString("base64url"),
      Buffer.from('["yesterday","x"]').toString("base64url"),
      Buffer.from('["2026-11-22T10:01:00.000Z",""]').toString("base64url"),
      Buffer.from('["2026-11-22T10:01:00.000Z","x","y"]').toString("base64url"),
      // Times the database might read otherwise than the page that wrote them: only ISO 8601 in UTC.
      Buffer.from('["Nov 22 2026","x"]').toString("base64url"),
      Buffer.from('["2026-11-22T10:01:00+01:00","x"]').toString("base64url"),
      Buffer.from('["2026-11-22T10:01:00.1234567Z","x"]').toString("base64url"),
      Buffer.from("{}").toString("base64url"),
    ];
    for (const cursor of bad) {
      expect(() => parse(`cursor=${encodeURIComponent(cursor)}`), cursor).toThrow(/cursor must be the nextCursor of an earlier page/);
    }
  });
});

describe("keyset pages", () => {
  it("show `limit` of the rows read with one extra, and a cursor after the last only when more follow", () => {
    const rows = [
      { id: "a", at: "2026-11-22T10:03:00.000003Z" },
      { id: "b", at: "2026-11-22T10:03:00.000002Z" },
      { id: "c", at: "2026-11-22T10:03:00.000001Z" },
    ];
    const first = keysetPage(
      rows,
      2,
      (row) => row.id,
      (row) => row,
    );
    expect(first).toEqual({ items: ["a", "b"], nextCursor: encodeKeysetCursor({ at: "2026-11-22T10:03:00.000002Z", id: "b" }) });
    expect(parse(`cursor=${first.nextCursor}`).cursor).toEqual({ at: "2026-11-22T10:03:00.000002Z", id: "b" });
    expect(
      keysetPage(
        rows,
        3,
        (row) => row.id,
        (row) => row,
      ),
    ).toEqual({ items: ["a", "b", "c"], nextCursor: null });
  });
});
