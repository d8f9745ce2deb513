import { Position } from "@xyflow/react";
import { describe, expect, it } from "vitest";
import { noteHandles } from "./note-handles";

describe("noteHandles", () => {
  it("puts one handle in the middle of each side of a note of that size", () => {
    const handles = noteHandles({ width: 290, height: 120 });
    const centres = Object.fromEntries(
      handles.map((handle) => [handle.id, { x: handle.x + handle.width! / 2, y: handle.y + handle.height! / 2 }]),
    );
    expect(centres).toEqual({ top: { x: 145, y: 0 }, right: { x: 290, y: 60 }, bottom: { x: 145, y: 120 }, left: { x: 0, y: 60 } });
    expect(handles.map((handle) => handle.position)).toEqual([Position.Top, Position.Right, Position.Bottom, Position.Left]);
  });

  it("makes every handle one a link may start or end at", () => {
    expect(noteHandles({ width: 10, height: 10 }).every((handle) => handle.type === "source")).toBe(true);
  });
});
