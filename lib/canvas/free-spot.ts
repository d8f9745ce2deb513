import { ownValue } from "@/lib/own-value";

export interface Point {
  x: number;
  y: number;
}

/** The room one node takes on the canvas, with a margin. */
export const CELL = { width: 380, height: 250 };

/** Where each persona starts placing work on an empty part of the canvas. */
const HOME_AREAS: Record<string, Point> = {
  "idea-weaver": { x: -760, y: 0 },
  songwriter: { x: -380, y: 0 },
  "scene-painter": { x: 0, y: 0 },
  storyteller: { x: -380, y: 520 },
  curator: { x: -760, y: 520 },
};

/** Where a persona starts placing work; a persona without an area of its own starts at the origin. */
export function homeArea(persona: string): Point {
  return ownValue(HOME_AREAS, persona) ?? { x: 0, y: 0 };
}

/** The nearest free cell to `anchor`, searching rightwards and downwards first. */
export function freeSpot(anchor: Point, occupied: Point[]): Point {
  const taken = (x: number, y: number) =>
    occupied.some((node) => Math.abs(node.x - x) < CELL.width - 20 && Math.abs(node.y - y) < CELL.height - 20);
  for (let ring = 0; ring < 14; ring++) {
    for (let dy = 0; dy <= ring; dy++) {
      for (const dx of [ring, ...Array.from({ length: ring }, (_, index) => index)]) {
        const x = Math.round(anchor.x + dx * CELL.width);
        const y = Math.round(anchor.y + dy * CELL.height);
        if (!taken(x, y)) return { x, y };
      }
    }
  }
  return { x: Math.round(anchor.x), y: Math.round(anchor.y + 14 * CELL.height) };
}
