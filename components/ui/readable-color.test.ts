import { describe, expect, it } from "vitest";
import { contrastRatio, readableInk } from "./readable-color";

describe("readableInk", () => {
  it("keeps a colour that already reads well on white", () => {
    expect(readableInk("#212529")).toBe("#212529");
  });

  it("darkens a light agent colour until small text in it passes 4.5:1, keeping its hue", () => {
    const ink = readableInk("#f59f00");
    expect(ink).not.toBe("#f59f00");
    expect(contrastRatio(ink, "#ffffff")).toBeGreaterThanOrEqual(4.5);
    // Still orange: red above green above blue.
    const [r, g, b] = [1, 3, 5].map((at) => Number.parseInt(ink.slice(at, at + 2), 16)) as [number, number, number];
    expect(r).toBeGreaterThan(g);
    expect(g).toBeGreaterThan(b);
  });

  it("reads against another background, and leaves what is not a colour as it is", () => {
    expect(contrastRatio(readableInk("#20c997", "#f8f9fa"), "#f8f9fa")).toBeGreaterThanOrEqual(4.5);
    expect(readableInk("var(--accent)")).toBe("var(--accent)");
  });
});

describe("contrastRatio", () => {
  it("is 21 for black on white and 1 for a colour on itself", () => {
    expect(contrastRatio("#000000", "#ffffff")).toBeCloseTo(21, 5);
    expect(contrastRatio("#4c6ef5", "#4c6ef5")).toBe(1);
  });
});
