import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { type CanvasNode, canvasNodes } from "@/db/schema";
import { eventPayload, type WriteRequestOptions, writeRoomEvents } from "@/lib/events/write-room-events";
import type { CanvasNodeDto } from "@/lib/protocol";
import { nodeToDto } from "@/lib/rooms/dto";
import type { CanvasAuthor } from "./author";
import { type Point, boxOf, freeSpot, shapeOf } from "./free-spot";
import type { CreateNodeInput } from "./inputs";

export interface CanvasWriteOptions extends WriteRequestOptions {
  correlationId?: string;
}

export interface CreateNodeOptions extends CanvasWriteOptions {
  /** Where to look for free space when the input gives no position. */
  placeNear?: Point;
}

/** The input of a node whose position may be left to `createNode` to find. */
export type NodePlacement = Omit<CreateNodeInput, "x" | "y"> & Partial<Point>;

/**
 * Adds a node (a person's sticky note or an agent's work) and its `node.created` event. A
 * person's note goes where they put it. A node without a position goes to the free spot
 * nearest `placeNear`, and an agent's node to the free spot nearest the position it asked for,
 * so agents' work never covers other work; the spot is found under the room lock, so two nodes
 * placed at once never take the same one. A retry under the same key names the same input, not
 * the spot found, and gets the original node back.
 */
export async function createNode(
  db: Db,
  roomId: string,
  author: CanvasAuthor,
  input: NodePlacement,
  options: CreateNodeOptions = {},
): Promise<CanvasNodeDto> {
  const { placeNear, ...writeOptions } = options;
  const { events } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit, now, defer) => {
      const asked = input.x !== undefined && input.y !== undefined ? { x: input.x, y: input.y } : undefined;
      const place =
        asked && author.kind !== "agent"
          ? asked
          : freeSpot(
              asked ?? placeNear ?? { x: 0, y: 0 },
              (await tx.select(shapeColumns).from(canvasNodes).where(eq(canvasNodes.roomId, roomId))).map(boxOf),
              boxOf(shapeOf({ x: 0, y: 0, kind: input.kind ?? "note", text: input.text })),
            );
      const row: CanvasNode = {
        id: randomUUID(),
        roomId,
        kind: input.kind ?? "note",
        text: input.text,
        x: place.x,
        y: place.y,
        width: input.width ?? null,
        height: input.height ?? null,
        color: input.color ?? null,
        authorKind: author.kind,
        authorId: author.id,
        authorName: author.name,
        version: 1,
        createdAt: now,
        updatedAt: now,
      };
      defer(tx.insert(canvasNodes).values(row));
      emit({ type: "node.created", actor: author, correlationId: options.correlationId, payload: { node: nodeToDto(row) } });
    },
    { ...writeOptions, change: { type: "node.created", request: { by: author.id, input } } },
  );
  return eventPayload(events, "node.created").node;
}

/** What placement reads of each node: its position, kind and how much text it holds, not the text. */
const shapeColumns = {
  x: canvasNodes.x,
  y: canvasNodes.y,
  kind: canvasNodes.kind,
  length: sql<number>`char_length(${canvasNodes.text})`.mapWith(Number),
  lineBreaks: sql<number>`char_length(${canvasNodes.text}) - char_length(replace(${canvasNodes.text}, chr(10), ''))`.mapWith(Number),
};
