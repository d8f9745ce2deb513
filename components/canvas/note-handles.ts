import { type NodeHandle, Position } from "@xyflow/react";

/** One handle per side of a note, where its links end; any can start or end a link (the canvas connects in loose mode). */
export const NOTE_SIDES = [
  { id: "top", position: Position.Top },
  { id: "right", position: Position.Right },
  { id: "bottom", position: Position.Bottom },
  { id: "left", position: Position.Left },
] as const;

/** A handle's box as drawn (see `.note__handle`): centred on the middle of its side. */
const HANDLE_SIZE = 9;

/**
 * The handles of a note of this size, as the canvas draws them. React Flow draws a note's links to
 * these until it has measured the note in the page, so that a link to a note not drawn yet (out of
 * view, where the canvas leaves notes undrawn) still ends at the note's side.
 */
export function noteHandles(size: { width: number; height: number }): NodeHandle[] {
  const middle = { x: size.width / 2, y: size.height / 2 };
  const at: Record<(typeof NOTE_SIDES)[number]["id"], { x: number; y: number }> = {
    top: { x: middle.x, y: 0 },
    right: { x: size.width, y: middle.y },
    bottom: { x: middle.x, y: size.height },
    left: { x: 0, y: middle.y },
  };
  return NOTE_SIDES.map((side) => ({
    id: side.id,
    type: "source",
    position: side.position,
    x: at[side.id].x - HANDLE_SIZE / 2,
    y: at[side.id].y - HANDLE_SIZE / 2,
    width: HANDLE_SIZE,
    height: HANDLE_SIZE,
  }));
}
