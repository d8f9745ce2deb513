import { randomUUID } from "node:crypto";
import type { DbOrTx } from "@/db";
import { type CanvasNode, canvasNodes } from "@/db/schema";
import type { Defer, Emit } from "@/lib/events/write-room-events";
import { nodeToDto } from "@/lib/rooms/dto";
import type { CanvasAuthor } from "./author";

/** What a new node says of itself; what it leaves out (size, colour, id) is empty or new. */
export interface NewNode {
  id?: string;
  roomId: string;
  kind: string;
  text: string;
  x: number;
  y: number;
  width?: number | null;
  height?: number | null;
  color?: string | null;
  author: CanvasAuthor;
  at: Date;
}

/** A new node's row: its first version, written at `at` by `author`. */
export function newNodeRow(node: NewNode): CanvasNode {
  return {
    id: node.id ?? randomUUID(),
    roomId: node.roomId,
    kind: node.kind,
    text: node.text,
    x: node.x,
    y: node.y,
    width: node.width ?? null,
    height: node.height ?? null,
    color: node.color ?? null,
    authorKind: node.author.kind,
    authorId: node.author.id,
    authorName: node.author.name,
    version: 1,
    createdAt: node.at,
    updatedAt: node.at,
  };
}

/**
 * Adds nodes to a canvas in the room write under way, each announced (`node.created`) as
 * written by its author: the one way a node is added, whether a person's note, an agent's
 * work, a brainstorm's lane or a build review's code. With `defer`, the insert rides along
 * with the statement that stores the events (for a caller that reads none of them back).
 */
export async function insertNodes(
  tx: DbOrTx,
  emit: Emit,
  rows: CanvasNode[],
  options: { correlationId?: string; defer?: Defer } = {},
): Promise<void> {
  if (rows.length === 0) return;
  const insert = tx.insert(canvasNodes).values(rows);
  if (options.defer) options.defer(insert);
  else await insert;
  for (const row of rows) {
    emit({
      type: "node.created",
      actor: { id: row.authorId, name: row.authorName },
      correlationId: options.correlationId,
      payload: { node: nodeToDto(row) },
    });
  }
}
