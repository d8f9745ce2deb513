import { describe, expect, it } from "vitest";
import { type Box, COLUMN, GAP, NOTE_WIDTH, boxOf, clearSpot, freeSpot, homeArea, shapeOf } from "./free-spot";

describe("homeArea", () => {
  it("starts each persona in its own area and any other name at the origin", () => {
    expect(homeArea("songwriter")).toEqual({ x: -COLUMN, y: 0 });
    for (const persona of ["gardener", "constructor", "__proto__", "toString"]) expect(homeArea(persona)).toEqual({ x: 0, y: 0 });
  });
});

describe("boxOf", () => {
  const at = { x: 5, y: 7 };

  it("grows with the text, its line breaks and a kind label, always a note wide", () => {
    const empty = boxOf(shapeOf({ ...at, kind: "note", text: "" }));
    const line = boxOf(shapeOf({ ...at, kind: "note", text: "a".repeat(30) }));
    const twoLines = boxOf(shapeOf({ ...at, kind: "note", text: "a".repeat(31) }));
    const broken = boxOf(shapeOf({ ...at, kind: "note", text: "a\nb\nc" }));
    const lyric = boxOf(shapeOf({ ...at, kind: "lyric", text: "a".repeat(30) }));
    expect(empty).toMatchObject({ ...at, width: NOTE_WIDTH });
    expect(line.height).toBe(empty.height);
    expect(twoLines.height).toBeGreaterThan(line.height);
    expect(broken.height).toBeGreaterThan(twoLines.height);
    expect(lyric.height).toBeGreaterThan(line.height);
  });

  it("caps a code node at its scrolling height however long the code", () => {
    const code = (lines: number) =>
      boxOf(shapeOf({ ...at, kind: "code", text: Array.from({ length: lines }, () => "x();").join("\n") })).height;
    expect(code(10)).toBeGreaterThan(code(2));
    expect(code(500)).toBe(code(200));
  });
});

function clear(a: Box, b: Box): boolean {
  return a.x + a.width + GAP.x <= b.x || b.x + b.width + GAP.x <= a.x || a.y + a.height + GAP.y <= b.y || b.y + b.height + GAP.y <= a.y;
}

describe("freeSpot", () => {
  const anchor = { x: 100, y: 40 };
  const size = { width: NOTE_WIDTH, height: 120 };
  const box = (x: number, y: number, height = 120): Box => ({ x, y, width: NOTE_WIDTH, height });

  it("takes the anchor itself on an empty canvas, rounded to whole units", () => {
    expect(freeSpot(anchor, [], size)).toEqual(anchor);
    expect(freeSpot({ x: 10.4, y: -3.6 }, [], size)).toEqual({ x: 10, y: -4 });
  });

  it("goes just below a box on the anchor, and below a tall one by its whole height", () => {
    expect(freeSpot(anchor, [box(anchor.x, anchor.y)], size)).toEqual({ x: anchor.x, y: anchor.y + 120 + GAP.y });
    expect(freeSpot(anchor, [box(anchor.x, anchor.y, 900)], size)).toEqual({ x: anchor.x + COLUMN, y: anchor.y });
  });

  it("counts a box as in the way when the new one would come within the gap of it", () => {
    const near = box(anchor.x + NOTE_WIDTH + GAP.x - 1, anchor.y);
    expect(freeSpot(anchor, [near], size)).not.toEqual(anchor);
    const far = box(anchor.x + NOTE_WIDTH + GAP.x, anchor.y);
    expect(freeSpot(anchor, [far], size)).toEqual(anchor);
  });

  it("never returns a spot within the gap of any box, however crowded, and gives the same answer every time", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const occupied: Box[] = [];
    for (let index = 0; index < 200; index++) {
      const height = 60 + Math.round(random() * 600);
      const spot = freeSpot({ x: Math.round(random() * 1200) - 600, y: Math.round(random() * 800) - 400 }, occupied, {
        width: NOTE_WIDTH,
        height,
      });
      const placed = { ...spot, width: NOTE_WIDTH, height };
      for (const other of occupied) expect(clear(placed, other)).toBe(true);
      occupied.push(placed);
    }
    expect(freeSpot(anchor, occupied, size)).toEqual(freeSpot(anchor, occupied, size));
  });
});

describe("clearSpot", () => {
  const size = { width: NOTE_WIDTH, height: 120 };
  const taken: Box = { x: 0, y: 0, width: NOTE_WIDTH, height: 200 };

  it("keeps a free anchor exactly, and a taken one goes where freeSpot puts it", () => {
    expect(clearSpot({ x: 1000.5, y: -20.25 }, [taken], size)).toEqual({ x: 1000.5, y: -20.25 });
    expect(clearSpot({ x: 10.5, y: 10 }, [taken], size)).toEqual(freeSpot({ x: 10.5, y: 10 }, [taken], size));
    // Within the gap is taken too.
    const nearby = { x: NOTE_WIDTH + GAP.x - 1, y: 0 };
    expect(clearSpot(nearby, [taken], size)).not.toEqual(nearby);
    expect(clearSpot({ x: NOTE_WIDTH + GAP.x, y: 0 }, [taken], size)).toEqual({ x: NOTE_WIDTH + GAP.x, y: 0 });
  });
});
