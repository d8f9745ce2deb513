import type { CanvasEdgeDto, CanvasNodeDto } from "@/lib/protocol";

const KIND_LABELS: Record<string, string> = {
  note: "Note",
  lyric: "Lyric",
  scene: "Scene",
  idea: "Idea",
  story: "Story",
  theme: "Theme",
  group: "Group",
  brief: "Brief",
  code: "Code",
};

const NAME_TEXT = 80;

export function kindLabel(kind: string): string {
  return KIND_LABELS[kind] ?? kind.charAt(0).toUpperCase() + kind.slice(1);
}

/** A note's text on one line, clipped: what its title shows when zoomed out, and what its name begins with. */
export function noteTitle(node: Pick<CanvasNodeDto, "text">, length = NAME_TEXT): string {
  const line = node.text.replace(/\s+/g, " ").trim();
  return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}

/** What a screen reader calls a note: "Scene: The rain in the foreground…, by Scene Painter". */
export function noteName(node: Pick<CanvasNodeDto, "kind" | "text" | "authorName">): string {
  const title = noteTitle(node);
  return `${kindLabel(node.kind)}: ${title || "empty"}, by ${node.authorName}`;
}

/** What a screen reader calls a link: "link: Songwriter's lyric → Scene Painter's scene, illustrates". */
export function linkName(edge: Pick<CanvasEdgeDto, "sourceId" | "targetId" | "label">, nodes: Record<string, CanvasNodeDto>): string {
  const end = (id: string) => {
    const node = nodes[id];
    return node ? `${node.authorName}'s ${kindLabel(node.kind).toLowerCase()}` : "a note";
  };
  return `link: ${end(edge.sourceId)} → ${end(edge.targetId)}${edge.label ? `, ${edge.label}` : ""}`;
}

type Point = { id: string; x: number; y: number };

/**
 * Notes in reading order, top row first and left to right within a row: the order Tab visits
 * them in. Notes whose tops are within `rowHeight` of the row's first share its row.
 */
export function readingOrder<T extends Point>(points: readonly T[], rowHeight = 80): T[] {
  const byTop = [...points].sort((a, b) => a.y - b.y || a.x - b.x);
  const rows: T[][] = [];
  for (const point of byTop) {
    const row = rows.at(-1);
    if (row && point.y - row[0]!.y < rowHeight) row.push(point);
    else rows.push([point]);
  }
  return rows.flatMap((row) => row.sort((a, b) => a.x - b.x));
}

const DIRECTIONS = {
  ArrowRight: { x: 1, y: 0 },
  ArrowLeft: { x: -1, y: 0 },
  ArrowDown: { x: 0, y: 1 },
  ArrowUp: { x: 0, y: -1 },
} as const;

export type ArrowKey = keyof typeof DIRECTIONS;

export function isArrowKey(key: string): key is ArrowKey {
  return key in DIRECTIONS;
}

/**
 * The note an arrow key moves to from `from`: the nearest whose centre lies in that direction
 * (within 45° of it), nearer along the direction counting less than off to the side. Null at the edge.
 */
export function nextInDirection<T extends Point>(from: T, points: readonly T[], key: ArrowKey): T | null {
  const direction = DIRECTIONS[key];
  let best: T | null = null;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const point of points) {
    if (point.id === from.id) continue;
    const dx = point.x - from.x;
    const dy = point.y - from.y;
    const along = dx * direction.x + dy * direction.y;
    const across = Math.abs(dx * direction.y - dy * direction.x);
    if (along <= 0 || across > along) continue;
    const score = along + 2 * across;
    if (score < bestScore) {
      bestScore = score;
      best = point;
    }
  }
  return best;
}
