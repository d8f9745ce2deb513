import { describe, expect, it } from "vitest";
import { z } from "zod";
import { encodeKeysetCursor, keysetCursorSchema } from "./keyset-cursor";
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
    expect(() => parse("sort=asc")).toThrow(expect.objectContaining({ status: 400, message: "unknown parameter(s) sort; use cursor, limit" }));
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

  it("are refused when they are not one", () => {
    const bad = [
      "not a cursor",
      Buffer.from("[1,2]").toString("base64url"),
      Buffer.from('["yesterday","x"]').toString("base64url"),
      Buffer.from('["2026-11-22T10:01:00.000Z",""]').toString("base64url"),
      Buffer.from('["2026-11-22T10:01:00.000Z","x","y"]').toString("base64url"),
      Buffer.from("{}").toString("base64url"),
    ];
    for (const cursor of bad) {
      expect(() => parse(`cursor=${encodeURIComponent(cursor)}`), cursor).toThrow(/cursor must be the nextCursor of an earlier page/);
    }
  });
});
