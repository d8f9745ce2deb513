import { randomUUID } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "@/db";
import { canvasEdges, canvasNodes } from "@/db/schema";
import { badRequest, notFound } from "@/lib/errors";
import { eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import type { CanvasEdgeDto, PayloadOf } from "@/lib/protocol";
import { edgeToDto } from "@/lib/rooms/dto";
import type { CanvasAuthor } from "./author";
import type { CanvasWriteOptions } from "./create-node";
import { type CreateEdgeInput, type UpdateEdgeInput, createEdgeInputSchema } from "./inputs";

/** Connects two nodes of the same room with a labelled edge. */
export async function createEdge(
  db: Db,
  roomId: string,
  author: CanvasAuthor,
  rawInput: CreateEdgeInput,
  options: CanvasWriteOptions = {},
): Promise<CanvasEdgeDto> {
  const input = createEdgeInputSchema.parse(rawInput);
  if (input.sourceId === input.targetId) throw badRequest("An edge connects two different nodes.");
  const { events } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit, now) => {
      const found = await tx
        .select({ id: canvasNodes.id })
        .from(canvasNodes)
        .where(and(eq(canvasNodes.roomId, roomId), inArray(canvasNodes.id, [input.sourceId, input.targetId])));
      const missing = [input.sourceId, input.targetId].filter((id) => !found.some((node) => node.id === id));
      if (missing.length > 0) throw badRequest(`Node ${missing.join(" and ")} does not exist in this room.`);
      const [row] = await tx
        .insert(canvasEdges)
        .values({
          id: randomUUID(),
          roomId,
          sourceId: input.sourceId,
          targetId: input.targetId,
          label: input.label,
          authorKind: author.kind,
          authorId: author.id,
          authorName: author.name,
          createdAt: now,
        })
        .returning();
      emit({ type: "edge.created", actor: author, correlationId: options.correlationId, payload: { edge: edgeToDto(row!) } });
    },
    { ...options, change: { type: "edge.created", request: { by: author.id, input: rawInput } } },
  );
  return eventPayload(events, "edge.created").edge;
}

export async function updateEdge(
  db: Db,
  roomId: string,
  edgeId: string,
  author: CanvasAuthor,
  input: UpdateEdgeInput,
  options: CanvasWriteOptions = {},
): Promise<PayloadOf<"edge.updated">> {
  const { events } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit) => {
      const updated = await tx
        .update(canvasEdges)
        .set({ label: input.label })
        .where(and(eq(canvasEdges.id, edgeId), eq(canvasEdges.roomId, roomId)))
        .returning({ id: canvasEdges.id });
      if (updated.length === 0) throw notFound(`Edge ${edgeId}`);
      emit({ type: "edge.updated", actor: author, correlationId: options.correlationId, payload: { edgeId, label: input.label } });
    },
    { ...options, change: { type: "edge.updated", subject: edgeId, request: { by: author.id, input } } },
  );
  return eventPayload(events, "edge.updated");
}

export async function deleteEdge(
  db: Db,
  roomId: string,
  edgeId: string,
  author: CanvasAuthor,
  options: CanvasWriteOptions = {},
): Promise<PayloadOf<"edge.deleted">> {
  const { events } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit) => {
      const deleted = await tx
        .delete(canvasEdges)
        .where(and(eq(canvasEdges.id, edgeId), eq(canvasEdges.roomId, roomId)))
        .returning({ id: canvasEdges.id });
      if (deleted.length === 0) throw notFound(`Edge ${edgeId}`);
      emit({ type: "edge.deleted", actor: author, correlationId: options.correlationId, payload: { edgeId } });
    },
    { ...options, change: { type: "edge.deleted", subject: edgeId, request: { by: author.id } } },
  );
  return eventPayload(events, "edge.deleted");
}
