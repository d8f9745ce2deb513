import { describe, expect, it } from "vitest";
import { planTidy, tidyLayout, tidyNotice, topLeft } from "./tidy-layout";

describe("tidyLayout", () => {
  // Small enough to stay well inside a unit test's time (ELK's cost grows fast with the graph);
  // the browser check tidies 200 notes (e2e/canvas-layout.spec.ts).
  it("lays 24 notes of mixed heights out with no two overlapping, starting at the given corner", async () => {
    const nodes = Array.from({ length: 24 }, (_, index) => ({ id: `n${index}`, width: 292, height: 90 + ((index * 37) % 300) }));
    const edges = Array.from({ length: 14 }, (_, index) => ({
      id: `e${index}`,
      sourceId: `n${(index * 7) % 24}`,
      targetId: `n${(index * 7 + 3) % 24}`,
      label: index % 3 ? "builds on" : "answers the question",
    }));
    const placed = await tidyLayout(nodes, edges, { x: -500, y: 40 });
    expect(placed.size).toBe(24);
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

  it("plans every note from the canvas's corner when they fit in one tidy", () => {
    const notes = [
      { id: "a", box: { x: 10, y: 40, width: 100, height: 50 }, createdAt: "2026-01-01T00:00:01Z" },
      { id: "b", box: { x: -20, y: 90, width: 100, height: 50 }, createdAt: "2026-01-01T00:00:02Z" },
    ];
    const plan = planTidy(notes, 2);
    expect(plan).toEqual({ ids: ["a", "b"], start: { x: -20, y: 40 }, leftOut: 0 });
    expect(tidyNotice(plan, 0)).toBeNull();
  });

  it("lays out the newest notes that fit beside the rest, which stay, and says so", () => {
    const notes = Array.from({ length: 7 }, (_, index) => ({
      id: `n${index}`,
      box: { x: index * 50, y: 100 - index, width: 292, height: 80 },
      // n5 and n6 share a moment: the id orders them.
      createdAt: `2026-01-01T00:00:0${Math.min(index, 5)}Z`,
    }));
    const plan = planTidy(notes, 4);
    expect(plan.ids).toEqual(["n6", "n5", "n4", "n3"]);
    expect(plan.leftOut).toBe(3);
    // Right of the notes that stay (n0–n2, the rightmost ending at 100 + 292), level with their top.
    expect(plan.start).toEqual({ x: 100 + 292 + 90, y: 98 });
    expect(tidyNotice(plan, 0)).toBe(
      "Tidied the newest 4 of 7 notes (at most 4 move at once); the other 3 stay where they are, and the tidied ones are beside them.",
    );
    expect(tidyNotice({ ...plan, leftOut: 0 }, 2)).toBe("2 notes were deleted while the layout was made and left out.");
    expect(tidyNotice({ ...plan, leftOut: 0 }, 1)).toBe("One note was deleted while the layout was made and left out.");
  });
});
