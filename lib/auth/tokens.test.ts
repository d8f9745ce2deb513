import { createHash } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { safeEqual } from "./tokens";

describe("safeEqual", () => {
  it("tells equal secrets from different ones, whatever their lengths", () => {
    expect(safeEqual("e2e-admin-token-0123456789", "e2e-admin-token-0123456789")).toBe(true);
    expect(safeEqual("e2e-admin-token-0123456789", "e2e-admin-token-0123456788")).toBe(false);
    expect(safeEqual("e2e-admin-token-0123456789", "e2e")).toBe(false);
    expect(safeEqual("", "x")).toBe(false);
    expect(safeEqual("", "")).toBe(true);
    expect(safeEqual("é", "e\u0301")).toBe(false);
  });

  it("compares the secrets' digests with timingSafeEqual, never the strings themselves", async () => {
    const compared: [Buffer, Buffer][] = [];
    vi.resetModules();
    vi.doMock("node:crypto", async (importOriginal) => {
      const crypto = await importOriginal<typeof import("node:crypto")>();
      return {
        ...crypto,
        timingSafeEqual: (a: Buffer, b: Buffer) => {
          compared.push([a, b]);
          return crypto.timingSafeEqual(a, b);
        },
      };
    });
    try {
      const { safeEqual: watched } = await import("./tokens");
      expect(watched("the-admin-token-0123456789", "a-guess")).toBe(false);
      expect(watched("the-admin-token-0123456789", "the-admin-token-0123456789")).toBe(true);
      const sha256 = (value: string) => createHash("sha256").update(value).digest();
      // Equal-length digests whatever the lengths of the secrets, so the comparison takes the same time.
      expect(compared).toEqual([
        [sha256("the-admin-token-0123456789"), sha256("a-guess")],
        [sha256("the-admin-token-0123456789"), sha256("the-admin-token-0123456789")],
      ]);
    } finally {
      vi.doUnmock("node:crypto");
      vi.resetModules();
    }
  });
});
