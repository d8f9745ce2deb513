import { describe, expect, it } from "vitest";
import { VAULT_LIMITS, raisedLevel } from "./vault";

describe("an area's expertise", () => {
  it("rises by the amount gained, up to 100 and never above", () => {
    expect(raisedLevel(0, 1)).toBe(1);
    expect(raisedLevel(42, 10)).toBe(52);
    expect(raisedLevel(90, 10)).toBe(100);
    expect(raisedLevel(95, 10)).toBe(VAULT_LIMITS.maxLevel);
    expect(raisedLevel(100, 1)).toBe(100);
  });

  it("comes back into 0–100 from a level stored outside it", () => {
    expect(raisedLevel(150, 1)).toBe(100);
    expect(raisedLevel(-5, 1)).toBe(0);
    expect(raisedLevel(-5, 10)).toBe(5);
  });
});
