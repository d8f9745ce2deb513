import { describe, expect, it } from "vitest";
import { tidyLayout, topLeft } from "./tidy-layout";

describe("tidyLayout", () => {
  it("lays 200 notes of mixed heights out with no two overlapping, starting at the given corner", async () => {
    const nodes = Array.from({ length: 200 }, (_, index) => ({ id: `n${index}`, width: 292, height: 90 + ((index * 37) % 300) }));
    const edges = Array.from({ length: 120 }, (_, index) => ({
      id: `e${index}`,
      sourceId: `n${(index * 7) % 200}`,
      targetId: `n${(index * 7 + 3) % 200}`,
      label: index % 3 ? "builds on" : "answers the question",
    }));
    const placed = await tidyLayout(nodes, edges, { x: -500, y: 40 });
    expect(placed.size).toBe(200);
    const boxes = nodes.map((node) => ({ ...placed.get(node.id)!, width: node.width, height: node.height }));
    expect(topLeft(boxes)).toEqual({ x: -500, y: 40 });
    for (const [index, a] of boxes.entries()) {
      for (const b of boxes.slice(index + 1)) {
        expect(a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y).toBe(true);
      }
    }
    // Packed, not one long row: the layout is no more than about three times as wide as tall.
    const width = Math.max(...boxes.map((box) => box.x + box.width)) + 500;
    const height = Math.max(...boxes.map((box) => box.y + box.height)) - 40;
    expect(width / height).toBeLessThan(3);
    expect(height / width).toBeLessThan(3);
  });

  it("puts a linked note to the right of the note it follows, and ignores links to notes it was not given", async () => {
    const placed = await tidyLayout(
      [
        { id: "a", width: 292, height: 100 },
        { id: "b", width: 292, height: 100 },
      ],
      [
        { id: "ab", sourceId: "a", targetId: "b", label: "builds on" },
        { id: "ax", sourceId: "a", targetId: "x", label: "" },
      ],
    );
    expect(placed.get("b")!.x).toBeGreaterThan(placed.get("a")!.x + 292);
  });
});
