import { describe, expect, it } from "vitest";
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
});
