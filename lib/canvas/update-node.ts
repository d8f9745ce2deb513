import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { canvasNodes } from "@/db/schema";
import { notFound } from "@/lib/errors";
import { eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import type { PayloadOf } from "@/lib/protocol";
import type { CanvasAuthor } from "./author";
import type { CanvasWriteOptions } from "./create-node";
import type { UpdateNodeInput } from "./inputs";

/** Changes a node's text, position, size or colour; each change bumps its version. */
export async function updateNode(
  db: Db,
  roomId: string,
  nodeId: string,
  author: CanvasAuthor,
  changes: UpdateNodeInput,
  options: CanvasWriteOptions = {},
): Promise<PayloadOf<"node.updated">> {
  const { events } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit, now) => {
      const [row] = await tx
        .update(canvasNodes)
        .set({ ...changes, version: sql`${canvasNodes.version} + 1`, updatedAt: now })
        .where(and(eq(canvasNodes.id, nodeId), eq(canvasNodes.roomId, roomId)))
        .returning({ version: canvasNodes.version });
      if (!row) throw notFound(`Node ${nodeId}`);
      emit({
        type: "node.updated",
        actor: author,
        correlationId: options.correlationId,
        payload: { nodeId, changes, version: row.version, updatedAt: now.toISOString() },
      });
    },
    { ...options, change: { type: "node.updated", subject: nodeId, request: { by: author.id, changes } } },
  );
  return eventPayload(events, "node.updated");
}
