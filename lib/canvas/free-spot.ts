import { ownValue } from "@/lib/own-value";

export interface Point {
  x: number;
  y: number;
}

export interface Box extends Point {
  width: number;
  height: number;
}

/** What placement needs to know of a node to tell how much room it takes on screen. */
export interface NodeShape extends Point {
  kind: string;
  /** Characters of text. */
  length: number;
  /** Line breaks in the text. */
  lineBreaks: number;
}

/** Space kept free around a node: across, room for a link and its label; down, a label's height. */
export const GAP = { x: 90, y: 56 };

/** The widest a note is drawn (its border included); agents' notes always take this width. */
export const NOTE_WIDTH = 292;

/** One column of work: a note and the gap beside it. */
export const COLUMN = NOTE_WIDTH + GAP.x;

/** Where each persona starts placing work on an empty part of the canvas. */
const HOME_AREAS: Record<string, Point> = {
  "idea-weaver": { x: -2 * COLUMN, y: 0 },
  songwriter: { x: -COLUMN, y: 0 },
  "scene-painter": { x: 0, y: 0 },
  storyteller: { x: -COLUMN, y: 560 },
  curator: { x: -2 * COLUMN, y: 560 },
};

/** Where a persona starts placing work; a persona without an area of its own starts at the origin. */
export function homeArea(persona: string): Point {
  return ownValue(HOME_AREAS, persona) ?? { x: 0, y: 0 };
}

// How a note is drawn (see canvas.css): 13 px text on 18.2 px lines, about 40 characters to a
// line. Counting 30 keeps the estimate above what any browser draws, so estimated boxes never
// come out smaller than the drawn ones.
const CHARS_PER_LINE = 30;
const TEXT_LINE = 18.2;
const CODE_LINE = 16;
const CODE_MAX = 376;
const CHROME = 64;
const KIND_LABEL = 18;

/** The box a node takes on screen, estimated from its text without drawing it (never smaller). */
export function boxOf(shape: NodeShape): Box {
  const label = shape.kind === "note" ? 0 : KIND_LABEL;
  const body =
    shape.kind === "code"
      ? Math.min(CODE_MAX, (shape.lineBreaks + 1) * CODE_LINE + 18)
      : Math.max(1, Math.ceil(shape.length / CHARS_PER_LINE) + shape.lineBreaks) * TEXT_LINE;
  return { x: shape.x, y: shape.y, width: NOTE_WIDTH, height: Math.ceil(CHROME + label + body) };
}

/** The shape of a node from its full text. */
export function shapeOf(node: Point & { kind: string; text: string }): NodeShape {
  return { x: node.x, y: node.y, kind: node.kind, length: node.text.length, lineBreaks: node.text.split("\n").length - 1 };
}

/** Whether two boxes come closer than the gap kept between nodes. */
export function clash(a: Box, b: Box): boolean {
  return a.x < b.x + b.width + GAP.x && b.x < a.x + a.width + GAP.x && a.y < b.y + b.height + GAP.y && b.y < a.y + a.height + GAP.y;
}

/** Whether one box covers part of the other. */
export function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** How far a candidate is from where its author wanted it; going left or up costs a little more. */
function distance(anchor: Point, spot: Point): number {
  const dx = spot.x - anchor.x;
  const dy = spot.y - anchor.y;
  return Math.hypot(dx < 0 ? dx * 1.25 : dx, dy < 0 ? dy * 1.25 : dy);
}

/**
 * Where a box of `size` wanted at `anchor` may go: the anchor itself, to the unit, when it clears every
 * occupied box by the gap; otherwise the nearest free spot (`freeSpot`).
 */
export function clearSpot(anchor: Point, occupied: Box[], size: { width: number; height: number }): Point {
  const wanted = { x: anchor.x, y: anchor.y, width: size.width, height: size.height };
  return occupied.some((box) => clash(wanted, box)) ? freeSpot(anchor, occupied, size) : { x: anchor.x, y: anchor.y };
}

/**
 * The spot nearest `anchor` where a box of `size` clears every occupied box by the gap. The
 * candidates are the anchor and, in columns to either side, the anchor's height and the space
 * just below each box there; the nearest clear one wins, ties to the earlier candidate, so the
 * answer is the same every time.
 */
export function freeSpot(
  anchor: Point,
  occupied: Box[],
  size: { width: number; height: number } = { width: NOTE_WIDTH, height: 160 },
): Point {
  const origin = { x: Math.round(anchor.x), y: Math.round(anchor.y) };
  const candidates: Point[] = [];
  for (let column = -6; column <= 10; column++) {
    const x = origin.x + column * COLUMN;
    candidates.push({ x, y: origin.y });
    for (const box of occupied) {
      if (box.x < x + size.width + GAP.x && x < box.x + box.width + GAP.x)
        candidates.push({ x, y: Math.round(box.y + box.height + GAP.y) });
    }
  }
  const ranked = candidates
    .map((spot, order) => ({ spot, order, cost: distance(origin, spot) }))
    .sort((a, b) => a.cost - b.cost || a.order - b.order);
  for (const { spot } of ranked) {
    if (!occupied.some((box) => clash({ x: spot.x, y: spot.y, width: size.width, height: size.height }, box))) return spot;
  }
  // Every candidate was taken, which needs every column to be: go below all of them.
  const bottom = Math.max(origin.y, ...occupied.map((box) => box.y + box.height + GAP.y));
  return { x: origin.x, y: Math.round(bottom) };
}
