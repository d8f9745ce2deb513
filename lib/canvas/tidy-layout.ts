import type { ElkNode } from "elkjs/lib/elk-api";
import { GAP, type Box, type Point } from "./free-spot";

export interface TidyNode {
  id: string;
  width: number;
  height: number;
}

export interface TidyEdge {
  id: string;
  sourceId: string;
  targetId: string;
  label: string;
}

/** How much room an edge label takes when drawn (12 px, semibold, with its padding; long ones are clipped at 220 px). */
export function labelSize(label: string): { width: number; height: number } {
  return { width: Math.min(220, Math.ceil(label.length * 7.8 + 18)), height: 22 };
}

/**
 * Lays the whole canvas out afresh: linked notes in layers from left to right with room for
 * their links' labels, unlinked groups packed beside them, nothing overlapping. Done by ELK's
 * layered algorithm, loaded only when someone asks for it. Returns each node's new top-left
 * corner, placed so the layout starts where the canvas's top-left corner was.
 */
export async function tidyLayout(nodes: TidyNode[], edges: TidyEdge[], start: Point = { x: 0, y: 0 }): Promise<Map<string, Point>> {
  const { default: ELK } = await import("elkjs/lib/elk.bundled.js");
  const known = new Set(nodes.map((node) => node.id));
  const graph: ElkNode = {
    id: "canvas",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "RIGHT",
      "elk.edgeRouting": "POLYLINE",
      "elk.spacing.nodeNode": String(GAP.y),
      "elk.layered.spacing.nodeNodeBetweenLayers": String(GAP.x),
      "elk.spacing.edgeLabel": "6",
      "elk.spacing.componentComponent": String(GAP.x),
      "elk.separateConnectedComponents": "true",
      "elk.aspectRatio": "1.6",
      "elk.edgeLabels.placement": "CENTER",
      "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
    },
    children: nodes.map((node) => ({ id: node.id, width: node.width, height: node.height })),
    edges: edges
      .filter((edge) => known.has(edge.sourceId) && known.has(edge.targetId) && edge.sourceId !== edge.targetId)
      .map((edge) => ({
        id: edge.id,
        sources: [edge.sourceId],
        targets: [edge.targetId],
        labels: edge.label ? [{ text: edge.label, ...labelSize(edge.label) }] : [],
      })),
  };
  const laidOut = await new ELK().layout(graph);
  const children = laidOut.children ?? [];
  const corner = topLeft(children.map((child) => ({ x: child.x ?? 0, y: child.y ?? 0, width: 0, height: 0 })));
  const placed = new Map<string, Point>();
  for (const child of children) {
    placed.set(child.id, { x: Math.round(start.x + (child.x ?? 0) - corner.x), y: Math.round(start.y + (child.y ?? 0) - corner.y) });
  }
  return placed;
}

/** What a tidy lays out, and from where. */
export interface TidyPlan {
  /** The notes to lay out. */
  ids: string[];
  /** Where the layout's top-left corner goes. */
  start: Point;
  /** How many notes stay where they are: more than one tidy may move. */
  leftOut: number;
}

/**
 * Which notes a tidy lays out: every one, from the canvas's top-left corner, when there are no
 * more than `limit` (as many as one tidy may move); otherwise the newest `limit`, laid out beside
 * the rest — to their right, level with their top — which stay where they are, so nothing overlaps.
 */
export function planTidy(notes: { id: string; box: Box; createdAt: string }[], limit: number): TidyPlan {
  if (notes.length <= limit) return { ids: notes.map((note) => note.id), start: topLeft(notes.map((note) => note.box)), leftOut: 0 };
  const newestFirst = [...notes].sort((a, b) =>
    a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
  );
  const staying = newestFirst.slice(limit).map((note) => note.box);
  return {
    ids: newestFirst.slice(0, limit).map((note) => note.id),
    start: { x: Math.max(...staying.map((box) => box.x + box.width)) + GAP.x, y: topLeft(staying).y },
    leftOut: staying.length,
  };
}

/** What the page says after a tidy that could not move every note, or null when it moved them all. */
export function tidyNotice(plan: TidyPlan, gone: number): string | null {
  const parts: string[] = [];
  if (plan.leftOut > 0) {
    parts.push(
      `Tidied the newest ${plan.ids.length} of ${plan.ids.length + plan.leftOut} notes (at most ${plan.ids.length} move at once); the other ${plan.leftOut} stay where they are, and the tidied ones are beside them.`,
    );
  }
  if (gone > 0) parts.push(`${gone === 1 ? "One note was" : `${gone} notes were`} deleted while the layout was made and left out.`);
  return parts.length ? parts.join(" ") : null;
}

/** The top-left corner of the smallest box around `boxes`. */
export function topLeft(boxes: Box[]): Point {
  if (boxes.length === 0) return { x: 0, y: 0 };
  return { x: Math.min(...boxes.map((box) => box.x)), y: Math.min(...boxes.map((box) => box.y)) };
}
