import { randomUUID } from "node:crypto";
import type { Db } from "@/db";
import { type CanvasNode, canvasNodes } from "@/db/schema";
import { eventPayload, type WriteRequestOptions, writeRoomEvents } from "@/lib/events/write-room-events";
import type { CanvasNodeDto } from "@/lib/protocol";
import { nodeToDto } from "@/lib/rooms/dto";
import type { CanvasAuthor } from "./author";
import type { CreateNodeInput } from "./inputs";

export interface CanvasWriteOptions extends WriteRequestOptions {
  correlationId?: string;
}

/** Adds a node (a person's sticky note or an agent's work) and its `node.created` event. */
export async function createNode(
  db: Db,
  roomId: string,
  author: CanvasAuthor,
  input: CreateNodeInput,
  options: CanvasWriteOptions = {},
): Promise<CanvasNodeDto> {
  const { events } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit, now, defer) => {
      const row: CanvasNode = {
        id: randomUUID(),
        roomId,
        kind: input.kind ?? "note",
        text: input.text,
        x: input.x,
        y: input.y,
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
    { ...options, change: { type: "node.created", request: { by: author.id, input } } },
  );
  return eventPayload(events, "node.created").node;
}
