export interface Point {
  x: number;
  y: number;
}

/** The room one node takes on the canvas, with a margin. */
export const CELL = { width: 300, height: 190 };

/** Where each persona starts placing work on an empty part of the canvas. */
export const HOME_AREAS: Record<string, Point> = {
  brainstormer: { x: -620, y: -40 },
  coder: { x: -200, y: -40 },
  architect: { x: 220, y: -40 },
  analyst: { x: -200, y: 420 },
  "canvas-agent": { x: -620, y: 420 },
};

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
