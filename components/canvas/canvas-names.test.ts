import { describe, expect, it } from "vitest";
import type { CanvasNodeDto } from "@/lib/protocol";
import { linkName, nextInDirection, noteName, readingOrder } from "./canvas-names";

const note = (id: string, kind: string, authorName: string, text: string) => ({ id, kind, authorName, text }) as CanvasNodeDto;

describe("names a screen reader reads", () => {
  it("names a note by its kind, its text on one line and its author, never by its id", () => {
    expect(noteName(note("n1", "scene", "Scene Painter", "The rain in the\nforeground"))).toBe(
      "Scene: The rain in the foreground, by Scene Painter",
    );
    expect(noteName(note("n2", "note", "Ada", ""))).toBe("Note: empty, by Ada");
    expect(noteName(note("n3", "idea", "Ada", "x".repeat(200))).length).toBeLessThan(100);
  });

  it("names a link by its two ends and its label", () => {
    const nodes = { a: note("a", "lyric", "Songwriter", "verse"), b: note("b", "scene", "Scene Painter", "scene") };
    expect(linkName({ sourceId: "a", targetId: "b", label: "sparks" }, nodes)).toBe(
      "link: Songwriter's lyric → Scene Painter's scene, sparks",
    );
    expect(linkName({ sourceId: "a", targetId: "gone", label: "" }, nodes)).toBe("link: Songwriter's lyric → a note");
  });
});

describe("moving between notes", () => {
  const grid = [
    { id: "b", x: 400, y: 10 },
    { id: "a", x: 0, y: 0 },
    { id: "d", x: 400, y: 300 },
    { id: "c", x: 0, y: 320 },
  ];

  it("visits notes row by row, left to right", () => {
    expect(readingOrder(grid).map((point) => point.id)).toEqual(["a", "b", "c", "d"]);
  });

  it("moves to the nearest note in an arrow's direction, and nowhere past the edge", () => {
    const [b, a, d, c] = grid as [(typeof grid)[0], (typeof grid)[0], (typeof grid)[0], (typeof grid)[0]];
    expect(nextInDirection(a, grid, "ArrowRight")?.id).toBe("b");
    expect(nextInDirection(a, grid, "ArrowDown")?.id).toBe("c");
    expect(nextInDirection(d, grid, "ArrowLeft")?.id).toBe("c");
    expect(nextInDirection(d, grid, "ArrowUp")?.id).toBe("b");
    expect(nextInDirection(b, grid, "ArrowRight")).toBeNull();
    expect(nextInDirection(c, grid, "ArrowDown")).toBeNull();
  });
});
