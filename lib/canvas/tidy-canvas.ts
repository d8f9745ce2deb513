import { sql } from "drizzle-orm";
import { rowsOf } from "@/db/rows";
import { z } from "zod";
import type { Db } from "@/db";
import { canvasNodes } from "@/db/schema";
import { eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import { LIMITS, coordinateSchema, type PayloadOf } from "@/lib/protocol";
import type { CanvasAuthor } from "./author";
import type { CanvasWriteOptions } from "./create-node";
import { assertNodesInRoom } from "./nodes-in-room";

export const tidyCanvasInputSchema = z.strictObject({
  positions: z
    .array(z.strictObject({ nodeId: z.string().min(1).max(64), x: coordinateSchema, y: coordinateSchema }))
    .min(1, "Give at least one position")
    .max(LIMITS.tidyNodes, `At most ${LIMITS.tidyNodes} notes are laid out at once`)
    .refine((positions) => new Set(positions.map((at) => at.nodeId)).size === positions.length, "Each note is placed once"),
});
export type TidyCanvasInput = z.infer<typeof tidyCanvasInputSchema>;

/**
 * Moves many notes at once, as a participant's "tidy" lays the canvas out afresh: one statement,
 * one `canvas.tidied` event, every moved note's version bumped. Every id must be a node of the
 * room (400 naming the missing ones, nothing moved).
 */
export async function tidyCanvas(
  db: Db,
  roomId: string,
  author: CanvasAuthor,
  input: TidyCanvasInput,
  options: CanvasWriteOptions = {},
): Promise<PayloadOf<"canvas.tidied">> {
  const { events } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit, now) => {
      await assertNodesInRoom(
        tx,
        roomId,
        input.positions.map((at) => at.nodeId),
      );
      const rows = sql.join(
        input.positions.map((at) => sql`(${at.nodeId}, ${at.x}::double precision, ${at.y}::double precision)`),
        sql`, `,
      );
      const moved = await tx.execute(sql`
        update ${canvasNodes} set x = placed.x, y = placed.y, version = ${canvasNodes.version} + 1, updated_at = ${now.toISOString()}::timestamptz
        from (values ${rows}) as placed(id, x, y)
        where ${canvasNodes.id} = placed.id and ${canvasNodes.roomId} = ${roomId}
        returning ${canvasNodes.id} as id, ${canvasNodes.x} as x, ${canvasNodes.y} as y, ${canvasNodes.version} as version`);
      const positions = rowsOf<{ id: string; x: number; y: number; version: number }>(moved)
        .map((row) => ({ nodeId: row.id, x: Number(row.x), y: Number(row.y), version: Number(row.version) }))
        .sort((a, b) => (a.nodeId < b.nodeId ? -1 : 1));
      emit({ type: "canvas.tidied", actor: author, correlationId: options.correlationId, payload: { positions, updatedAt: now.toISOString() } });
    },
    { ...options, change: { type: "canvas.tidied", request: { by: author.id, input } } },
  );
  return eventPayload(events, "canvas.tidied");
}
