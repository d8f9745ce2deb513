import { describe, expect, it } from "vitest";
import { endTry, startTry, withoutError } from "./use-submit";

describe("a form's submit state", () => {
  it("starts a try busy and clears the last error, unless one is already running", () => {
    expect(startTry({ busy: false, error: "Room not found." })).toEqual({ busy: true, error: null });
    expect(startTry({ busy: true, error: null })).toBeNull();
  });

  it("ends a try with the failure's message, or clear", () => {
    expect(endTry(new Error("Display names are limited to 40 characters"))).toEqual({
      busy: false,
      error: "Display names are limited to 40 characters",
    });
    expect(endTry("refused")).toEqual({ busy: false, error: "refused" });
    expect(endTry(undefined)).toEqual({ busy: false, error: null });
  });

  it("stays busy after a success that leaves the page", () => {
    expect(endTry(undefined, { keepBusy: true })).toEqual({ busy: true, error: null });
    expect(endTry(new Error("no"), { keepBusy: true })).toEqual({ busy: false, error: "no" });
  });

  it("takes a shown error away, keeping a try under way busy", () => {
    expect(withoutError({ busy: false, error: "Unknown agent" })).toEqual({ busy: false, error: null });
    expect(withoutError({ busy: true, error: "Unknown agent" })).toEqual({ busy: true, error: null });
    const clear = { busy: false, error: null };
    expect(withoutError(clear)).toBe(clear);
  });
});
