import { describe, expect, it } from "vitest";
import { homeArea } from "./free-spot";

describe("homeArea", () => {
  it("starts each persona in its own area and any other name at the origin", () => {
    expect(homeArea("songwriter")).toEqual({ x: -380, y: 0 });
    for (const persona of ["gardener", "constructor", "__proto__", "toString"]) expect(homeArea(persona)).toEqual({ x: 0, y: 0 });
  });
});
