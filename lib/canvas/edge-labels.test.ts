import { describe, expect, it } from "vitest";
import { type Box, NOTE_WIDTH, boxOf, freeSpot, shapeOf } from "./free-spot";
import { facingSides, handlePoint, layoutLinks } from "./edge-labels";
import { labelSize } from "./tidy-layout";

const box = (x: number, y: number, height = 100): Box => ({ x, y, width: NOTE_WIDTH, height });

function intersects(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe("facingSides", () => {
  it("joins boxes side by side across, and boxes above each other up and down", () => {
    expect(facingSides(box(0, 0), box(500, 20))).toEqual({ source: "right", target: "left" });
    expect(facingSides(box(500, 0), box(0, 20))).toEqual({ source: "left", target: "right" });
    expect(facingSides(box(0, 0), box(40, 300))).toEqual({ source: "bottom", target: "top" });
    expect(facingSides(box(0, 300), box(40, 0))).toEqual({ source: "top", target: "bottom" });
  });

  it("measures the gap between boxes, not between corners, so a tall box beside a short one joins across", () => {
    expect(facingSides(box(0, 0, 800), box(400, 600))).toEqual({ source: "right", target: "left" });
  });
});

describe("layoutLinks", () => {
  it("puts a label in the middle of a link when it is clear there", () => {
    const boxes = new Map([
      ["a", box(0, 0)],
      ["b", box(600, 0)],
    ]);
    const layout = layoutLinks(boxes, [{ id: "e", sourceId: "a", targetId: "b", label: "builds on" }]).get("e");
    expect(layout).toEqual({ source: "right", target: "left", label: { x: (NOTE_WIDTH + 600) / 2, y: 50 } });
  });

  it("moves labels along their links so none covers a note or another label", () => {
    // Three notes in a row and two links from the first: to the second, and past it to the third.
    const boxes = new Map([
      ["a", box(0, 0)],
      ["b", box(400, 300)],
      ["c", box(0, 700)],
      ["d", box(400, 700)],
    ]);
    const links = [
      { id: "1", sourceId: "a", targetId: "b", label: "inspired" },
      { id: "2", sourceId: "a", targetId: "c", label: "answers the question" },
      { id: "3", sourceId: "a", targetId: "d", label: "builds on" },
      { id: "4", sourceId: "b", targetId: "c", label: "contrasts with" },
    ];
    const layouts = layoutLinks(boxes, links);
    const labels = links.map((link) => {
      const at = layouts.get(link.id)!.label!;
      const size = labelSize(link.label);
      return { x: at.x - size.width / 2, y: at.y - size.height / 2, ...size };
    });
    for (const [index, label] of labels.entries()) {
      for (const note of boxes.values()) expect(intersects(label, note)).toBe(false);
      for (const other of labels.slice(index + 1)) expect(intersects(label, other)).toBe(false);
    }
  });

  it("finds clear room for every label on a crowded canvas whose links cross other notes", () => {
    // 200 notes of very different heights placed around five anchors, as the canvas places them,
    // each linked to a note placed five before it (so most links pass over notes between them).
    const anchors = [
      { x: -760, y: 0 },
      { x: 0, y: 0 },
      { x: 760, y: 0 },
      { x: -380, y: 900 },
      { x: 380, y: 900 },
    ];
    const texts = (index: number) => ["short", "a".repeat(400), "a\nb\nc\nd", "a".repeat(1900), "a".repeat(90)][index % 5]!;
    const boxes = new Map<string, Box>();
    for (let index = 0; index < 200; index++) {
      const size = boxOf(shapeOf({ x: 0, y: 0, kind: "note", text: texts(index) }));
      const spot = freeSpot(anchors[index % 5]!, [...boxes.values()], size);
      boxes.set(String(index).padStart(3, "0"), { ...spot, width: size.width, height: size.height });
    }
    const names = ["builds on", "answers", "contrasts with", "echoes the mood of", "inspired"];
    const links = [];
    for (let index = 5; index < 200; index += 2) {
      links.push({
        id: `e${index}`,
        sourceId: String(index - 5).padStart(3, "0"),
        targetId: String(index).padStart(3, "0"),
        label: names[index % 5]!,
      });
    }
    const layouts = layoutLinks(boxes, links);
    const labels = links.map((link) => {
      const at = layouts.get(link.id)!.label!;
      const size = labelSize(link.label);
      return { x: at.x - size.width / 2, y: at.y - size.height / 2, ...size };
    });
    const covering = labels.flatMap((label, index) => [...boxes.values()].filter((note) => intersects(label, note)).map(() => index));
    const crossing = labels.flatMap((label, index) =>
      labels
        .slice(index + 1)
        .filter((other) => intersects(label, other))
        .map(() => index),
    );
    expect(covering).toEqual([]);
    expect(crossing).toEqual([]);
  });

  it("leaves a link without a label, or to a note not drawn, only its sides", () => {
    const boxes = new Map([["a", box(0, 0)]]);
    const layouts = layoutLinks(boxes, [
      { id: "x", sourceId: "a", targetId: "gone", label: "lost" },
      { id: "y", sourceId: "a", targetId: "a", label: "" },
    ]);
    expect(layouts.get("x")).toEqual({ source: "bottom", target: "top" });
    expect(layouts.get("y")?.label).toBeUndefined();
  });

  it("anchors links at the middle of the facing sides", () => {
    expect(handlePoint(box(10, 20), "right")).toEqual({ x: 10 + NOTE_WIDTH, y: 70 });
    expect(handlePoint(box(10, 20), "top")).toEqual({ x: 10 + NOTE_WIDTH / 2, y: 20 });
  });
});
