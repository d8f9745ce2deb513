import { describe, expect, it } from "vitest";
import { CELL, freeSpot, homeArea } from "./free-spot";

describe("homeArea", () => {
  it("starts each persona in its own area and any other name at the origin", () => {
    expect(homeArea("songwriter")).toEqual({ x: -380, y: 0 });
    for (const persona of ["gardener", "constructor", "__proto__", "toString"]) expect(homeArea(persona)).toEqual({ x: 0, y: 0 });
  });
});

describe("freeSpot", () => {
  const anchor = { x: 100, y: 40 };

  it("takes the anchor itself on an empty canvas, rounded to whole units", () => {
    expect(freeSpot(anchor, [])).toEqual(anchor);
    expect(freeSpot({ x: 10.4, y: -3.6 }, [])).toEqual({ x: 10, y: -4 });
  });

  it("searches ring by ring around a taken anchor, rightwards and downwards first", () => {
    const cell = (column: number, row: number) => ({ x: anchor.x + column * CELL.width, y: anchor.y + row * CELL.height });
    expect(freeSpot(anchor, [cell(0, 0)])).toEqual(cell(1, 0));
    expect(freeSpot(anchor, [cell(0, 0), cell(1, 0)])).toEqual(cell(1, 1));
    expect(freeSpot(anchor, [cell(0, 0), cell(1, 0), cell(1, 1)])).toEqual(cell(0, 1));
    expect(freeSpot(anchor, [cell(0, 0), cell(1, 0), cell(1, 1), cell(0, 1)])).toEqual(cell(2, 0));
  });

  it("counts a node as in the way when it overlaps the cell, not only when it sits on it", () => {
    const overlapping = { x: anchor.x - 30, y: anchor.y + 10 };
    expect(freeSpot(anchor, [overlapping])).toEqual({ x: anchor.x + CELL.width, y: anchor.y });
    const clear = { x: anchor.x + CELL.width - 19, y: anchor.y };
    expect(freeSpot(anchor, [clear])).toEqual(anchor);
  });

  it("never returns a spot a node overlaps while one is free, and gives the same answer every time", () => {
    const occupied = Array.from({ length: 30 }, (_, index) => ({
      x: anchor.x + (index % 6) * CELL.width,
      y: anchor.y + Math.floor(index / 6) * CELL.height,
    }));
    const spot = freeSpot(anchor, occupied);
    for (const node of occupied) {
      expect(Math.abs(node.x - spot.x) >= CELL.width - 20 || Math.abs(node.y - spot.y) >= CELL.height - 20).toBe(true);
    }
    expect(freeSpot(anchor, occupied)).toEqual(spot);
  });

  it("ends its search on a full neighbourhood, below everything it looked at", () => {
    const occupied = [];
    for (let row = 0; row < 14; row++) for (let column = 0; column < 14; column++) occupied.push({ x: anchor.x + column * CELL.width, y: anchor.y + row * CELL.height });
    expect(freeSpot(anchor, occupied)).toEqual({ x: anchor.x, y: anchor.y + 14 * CELL.height });
  });
});
