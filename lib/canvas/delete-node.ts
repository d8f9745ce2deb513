import { and, eq, or } from "drizzle-orm";
import type { Db } from "@/db";
import { canvasEdges, canvasNodes } from "@/db/schema";
import { notFound } from "@/lib/errors";
import { eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import type { PayloadOf } from "@/lib/protocol";
import type { CanvasAuthor } from "./author";
import type { CanvasWriteOptions } from "./create-node";

/** Deletes a node and the edges attached to it. */
export async function deleteNode(
  db: Db,
  roomId: string,
  nodeId: string,
  author: CanvasAuthor,
  options: CanvasWriteOptions = {},
): Promise<PayloadOf<"node.deleted">> {
  const { events } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit) => {
      const edges = await tx
        .delete(canvasEdges)
        .where(and(eq(canvasEdges.roomId, roomId), or(eq(canvasEdges.sourceId, nodeId), eq(canvasEdges.targetId, nodeId))))
        .returning({ id: canvasEdges.id });
      const deleted = await tx
        .delete(canvasNodes)
        .where(and(eq(canvasNodes.id, nodeId), eq(canvasNodes.roomId, roomId)))
        .returning({ id: canvasNodes.id });
      if (deleted.length === 0) throw notFound(`Node ${nodeId}`);
      emit({
        type: "node.deleted",
        actor: author,
        correlationId: options.correlationId,
        payload: { nodeId, edgeIds: edges.map((edge) => edge.id) },
      });
    },
    { ...options, change: { type: "node.deleted", subject: nodeId, request: { by: author.id } } },
  );
  return eventPayload(events, "node.deleted");
}
