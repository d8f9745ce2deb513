import type { Box, Point } from "./free-spot";
import { labelSize } from "./tidy-layout";

export type Side = "top" | "right" | "bottom" | "left";

export interface LabelledLink {
  id: string;
  sourceId: string;
  targetId: string;
  label: string;
}

export interface LinkLayout {
  source: Side;
  target: Side;
  /** Where the link's label is centred, when it has one. */
  label?: Point;
}

/** The sides two boxes face each other on, so a link takes the short way between them. */
export function facingSides(source: Box | undefined, target: Box | undefined): { source: Side; target: Side } {
  if (!source || !target) return { source: "bottom", target: "top" };
  const dx = target.x + target.width / 2 - (source.x + source.width / 2);
  const dy = target.y + target.height / 2 - (source.y + source.height / 2);
  const apartX = Math.abs(dx) - (source.width + target.width) / 2;
  const apartY = Math.abs(dy) - (source.height + target.height) / 2;
  if (apartX > 0 && apartX >= apartY) return dx > 0 ? { source: "right", target: "left" } : { source: "left", target: "right" };
  return dy > 0 ? { source: "bottom", target: "top" } : { source: "top", target: "bottom" };
}

/** The middle of a box's side, where its handle sits. */
export function handlePoint(box: Box, side: Side): Point {
  switch (side) {
    case "top":
      return { x: box.x + box.width / 2, y: box.y };
    case "bottom":
      return { x: box.x + box.width / 2, y: box.y + box.height };
    case "left":
      return { x: box.x, y: box.y + box.height / 2 };
    case "right":
      return { x: box.x + box.width, y: box.y + box.height / 2 };
  }
}

// Where along a link its label may sit, tried in this order: the middle first.
const STOPS = [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.12, 0.88];
// When every stop on the link is covered: how far from the link's middle to look for a gap, in steps.
const SEARCH_STEP = 14;
const SEARCH_RINGS = 24;
const SEARCH_DIRECTIONS = 16;

function overlap(a: Box, b: Box): number {
  const across = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const down = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return across > 0 && down > 0 ? across * down : 0;
}

/** Boxes bucketed by area, so asking what covers a spot looks only near it. */
class BoxIndex {
  private static readonly CELL = 256;
  private readonly cells = new Map<string, Box[]>();

  add(box: Box): void {
    for (const key of this.keys(box)) {
      const cell = this.cells.get(key);
      if (cell) cell.push(box);
      else this.cells.set(key, [box]);
    }
  }

  /** The area of `box` covered by the boxes added, each counted once. */
  covered(box: Box): number {
    const seen = new Set<Box>();
    let sum = 0;
    for (const key of this.keys(box)) {
      for (const other of this.cells.get(key) ?? []) {
        if (seen.has(other)) continue;
        seen.add(other);
        sum += overlap(box, other);
      }
    }
    return sum;
  }

  private *keys(box: Box): Generator<string> {
    const cell = BoxIndex.CELL;
    for (let column = Math.floor(box.x / cell); column <= Math.floor((box.x + box.width) / cell); column++) {
      for (let row = Math.floor(box.y / cell); row <= Math.floor((box.y + box.height) / cell); row++) yield `${column}:${row}`;
    }
  }
}

/**
 * Candidate centres for a label: stops along the link; then rings further and further around its
 * middle; then, nearest first, the gaps just above and below every note, where a label always fits.
 */
function* labelSpots(from: Point, to: Point, notes: Box[], size: { width: number; height: number }): Generator<Point> {
  for (const stop of STOPS) yield { x: from.x + (to.x - from.x) * stop, y: from.y + (to.y - from.y) * stop };
  const middle = { x: (from.x + to.x) / 2, y: (from.y + to.y) / 2 };
  for (let ring = 1; ring <= SEARCH_RINGS; ring++) {
    for (let direction = 0; direction < SEARCH_DIRECTIONS; direction++) {
      const angle = (direction / SEARCH_DIRECTIONS) * 2 * Math.PI;
      yield { x: middle.x + Math.cos(angle) * ring * SEARCH_STEP, y: middle.y + Math.sin(angle) * ring * SEARCH_STEP };
    }
  }
  const gaps: Point[] = [];
  for (const note of notes) {
    const across = Math.min(Math.max(middle.x, note.x + size.width / 2), note.x + note.width - size.width / 2);
    for (const y of [note.y - size.height / 2 - 2, note.y + note.height + size.height / 2 + 2]) {
      gaps.push({ x: across, y }, { x: note.x + note.width / 2, y });
    }
  }
  const away = (spot: Point) => Math.hypot(spot.x - middle.x, spot.y - middle.y);
  yield* gaps.sort((a, b) => away(a) - away(b));
}

/**
 * Which sides each link joins and where its label goes: the first stop along the straight link
 * whose label covers no note and no label placed before it; failing that, the nearest clear spot
 * around the link's middle or in a gap between notes (the link then draws a leader to its
 * label); failing that, the spot that covers least. Links are placed in a fixed
 * order (by id), so every viewer sees the same picture.
 */
export function layoutLinks(boxes: Map<string, Box>, links: LabelledLink[]): Map<string, LinkLayout> {
  const notes = [...boxes.values()];
  const taken = new BoxIndex();
  for (const box of notes) taken.add(box);
  const layouts = new Map<string, LinkLayout>();
  for (const link of [...links].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const source = boxes.get(link.sourceId);
    const target = boxes.get(link.targetId);
    const sides = facingSides(source, target);
    if (!source || !target || !link.label) {
      layouts.set(link.id, sides);
      continue;
    }
    const from = handlePoint(source, sides.source);
    const to = handlePoint(target, sides.target);
    // A little more than the label draws, so labels placed side by side keep a margin.
    const drawn = labelSize(link.label);
    const size = { width: drawn.width + 8, height: drawn.height + 6 };
    let best: { box: Box; cost: number } | undefined;
    for (const centre of labelSpots(from, to, notes, size)) {
      const box = { x: centre.x - size.width / 2, y: centre.y - size.height / 2, ...size };
      const cost = taken.covered(box);
      if (!best || cost < best.cost) best = { box, cost };
      if (cost === 0) break;
    }
    const chosen = best!.box;
    taken.add(chosen);
    layouts.set(link.id, { ...sides, label: { x: chosen.x + chosen.width / 2, y: chosen.y + chosen.height / 2 } });
  }
  return layouts;
}
