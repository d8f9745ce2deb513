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

/** The top-left corner of the smallest box around `boxes`. */
export function topLeft(boxes: Box[]): Point {
  if (boxes.length === 0) return { x: 0, y: 0 };
  return { x: Math.min(...boxes.map((box) => box.x)), y: Math.min(...boxes.map((box) => box.y)) };
}
