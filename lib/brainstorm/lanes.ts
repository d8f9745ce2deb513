import { randomUUID } from "node:crypto";
import { and, eq, gte, lt } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type CanvasEdge, type CanvasNode, canvasEdges, canvasNodes } from "@/db/schema";
import { COLUMN, GAP, boxOf, shapeOf } from "@/lib/canvas/free-spot";
import { insertNodes, newNodeRow } from "@/lib/canvas/insert-nodes";
import type { Actor, Emit } from "@/lib/events/write-room-events";
import { LIMITS, type StageKey, stageDefinition } from "@/lib/protocol";
import { edgeToDto } from "@/lib/rooms/dto";

/**
 * The brainstorm's canvas: one lane (a column) per stage, left to right in the order the work
 * flows, the four ideators' ideas side by side. Each lane starts with a heading node; what each
 * agent submits is stacked below it as it arrives, linked to what it was made from.
 */
const LANE_COLUMNS: Record<Exclude<StageKey, "gate">, number> = {
  framing: 0,
  divergent: 1,
  precedents: 5,
  convergent: 6,
  fact_check: 7,
  pushback: 8,
  prioritization: 9,
  review: 10,
  presentation: 11,
};

/** The node kinds the brainstorm writes; the framing and the lane headings are what an isolated ideator may see. */
export const LANE_HEADING_KIND = "stage";
export const FRAMING_KIND = "framing";

/** How far above a brainstorm's lane top its headings sit, and how much room a later brainstorm leaves above them. */
const HEADING_OFFSET = 280;
const BETWEEN_BRAINSTORMS = 400;

export const BRAINSTORM_AUTHOR: Actor = { id: "brainstorm", name: "Brainstorm" };

function laneX(stage: Exclude<StageKey, "gate">, subColumn = 0): number {
  return (LANE_COLUMNS[stage] + subColumn) * COLUMN;
}

/** The top of the free space at the bottom of a column, at or below `top`. */
async function columnBottom(tx: DbOrTx, roomId: string, x: number, top: number): Promise<number> {
  const rows = await tx
    .select({ x: canvasNodes.x, y: canvasNodes.y, kind: canvasNodes.kind, text: canvasNodes.text })
    .from(canvasNodes)
    .where(and(eq(canvasNodes.roomId, roomId), gte(canvasNodes.x, x - 1), lt(canvasNodes.x, x + COLUMN - 1), gte(canvasNodes.y, top)));
  return rows.reduce((bottom, row) => {
    const box = boxOf(shapeOf(row));
    return Math.max(bottom, box.y + box.height + GAP.y);
  }, top);
}

/**
 * Where a new brainstorm's lanes start: at the top of an empty canvas, or below everything the
 * room already holds (an earlier brainstorm, people's notes), with room for the headings.
 */
export async function laneTopFor(tx: DbOrTx, roomId: string): Promise<number> {
  const rows = await tx
    .select({ x: canvasNodes.x, y: canvasNodes.y, kind: canvasNodes.kind, text: canvasNodes.text })
    .from(canvasNodes)
    .where(eq(canvasNodes.roomId, roomId));
  if (rows.length === 0) return 0;
  const bottom = Math.max(
    ...rows.map((row) => {
      const box = boxOf(shapeOf(row));
      return box.y + box.height;
    }),
  );
  return Math.max(0, Math.ceil(bottom + BETWEEN_BRAINSTORMS + HEADING_OFFSET));
}

function clip(text: string): string {
  return text.length > LIMITS.noteText ? `${text.slice(0, LIMITS.noteText - 1)}…` : text;
}

interface NodeInput {
  /** Its id, when the caller must name it before the node is written. */
  id?: string;
  kind: string;
  text: string;
  color?: string | null;
}

/**
 * Adds nodes to the bottom of a stage's lane (one of its sub-columns for the ideators) in the
 * room write under way, announcing each one. Returns the nodes in the order given.
 */
export async function addLaneNodes(
  tx: DbOrTx,
  emit: Emit,
  input: {
    roomId: string;
    stage: Exclude<StageKey, "gate">;
    subColumn?: number;
    /** Where the brainstorm's lanes start (see `laneTopFor`). */
    laneTop: number;
    /** Where the first node goes; by default below what the lane holds. */
    top?: number;
    author: Actor;
    correlationId: string;
    at: Date;
    nodes: NodeInput[];
  },
): Promise<CanvasNode[]> {
  const x = laneX(input.stage, input.subColumn);
  let y = input.top ?? (await columnBottom(tx, input.roomId, x, input.laneTop));
  const rows: CanvasNode[] = [];
  for (const node of input.nodes) {
    const row = newNodeRow({
      ...node,
      roomId: input.roomId,
      text: clip(node.text),
      x,
      y,
      author: { kind: "agent", ...input.author },
      at: input.at,
    });
    y += boxOf(shapeOf(row)).height + GAP.y;
    rows.push(row);
  }
  await insertNodes(tx, emit, rows, { correlationId: input.correlationId });
  return rows;
}

/** Links what fed a piece of work to it (`from` → `to`), in the room write under way. */
export async function linkNodes(
  tx: DbOrTx,
  emit: Emit,
  input: { roomId: string; author: Actor; correlationId: string; at: Date; links: { from: string; to: string; label: string }[] },
): Promise<void> {
  const rows: CanvasEdge[] = input.links
    .filter((link) => link.from !== link.to)
    .map((link) => ({
      id: randomUUID(),
      roomId: input.roomId,
      sourceId: link.from,
      targetId: link.to,
      label: link.label,
      authorKind: "agent",
      authorId: input.author.id,
      authorName: input.author.name,
      createdAt: input.at,
    }));
  if (!rows.length) return;
  await tx.insert(canvasEdges).values(rows);
  for (const row of rows)
    emit({ type: "edge.created", actor: input.author, correlationId: input.correlationId, payload: { edge: edgeToDto(row) } });
}

/** The heading at the top of a stage's lane, written when the stage first starts. */
export async function addLaneHeading(
  tx: DbOrTx,
  emit: Emit,
  input: { roomId: string; stage: Exclude<StageKey, "gate">; laneTop: number; correlationId: string; at: Date },
) {
  const stage = stageDefinition(input.stage);
  await addLaneNodes(tx, emit, {
    roomId: input.roomId,
    stage: input.stage,
    laneTop: input.laneTop,
    top: input.laneTop - HEADING_OFFSET,
    author: BRAINSTORM_AUTHOR,
    correlationId: input.correlationId,
    at: input.at,
    // An isolated stage's ideators read its heading: it says only what each is asked.
    nodes: [{ kind: LANE_HEADING_KIND, text: `Stage ${stage.number} · ${stage.name}\n${stage.goalAlone ?? stage.goal}`, color: "#f1f3f5" }],
  });
}
