import { inArray, sql } from "drizzle-orm";
import { rowsOf } from "@/db/rows";
import { z } from "zod";
import type { Db } from "@/db";
import { canvasNodes } from "@/db/schema";
import { badRequest } from "@/lib/errors";
import { eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import { LIMITS, coordinateSchema, type PayloadOf } from "@/lib/protocol";
import type { CanvasAuthor } from "./author";
import type { CanvasWriteOptions } from "./create-node";

export const tidyCanvasInputSchema = z.strictObject({
  positions: z
    .array(z.strictObject({ nodeId: z.string().min(1).max(64), x: coordinateSchema, y: coordinateSchema }))
    .min(1, "Give at least one position")
    .max(LIMITS.tidyNodes, `At most ${LIMITS.tidyNodes} notes are laid out at once`)
    .refine((positions) => new Set(positions.map((at) => at.nodeId)).size === positions.length, "Each note is placed once"),
});
export type TidyCanvasInput = z.infer<typeof tidyCanvasInputSchema>;

/** What a tidy did: the `canvas.tidied` event's positions, and the notes it could no longer place. */
export interface TidyResult extends PayloadOf<"canvas.tidied"> {
  /** Ids that name no note any more (deleted while the layout was being made): left out, not refused. */
  gone: string[];
}

/**
 * Moves many notes at once, as a participant's "tidy" lays the canvas out afresh: one statement,
 * one `canvas.tidied` event, every moved note's version bumped. A note deleted since the layout
 * was made is left out (`gone`) and the others are moved; a note of another room is refused
 * (400 naming it, nothing moved). When every note named is gone, nothing is written.
 */
export async function tidyCanvas(
  db: Db,
  roomId: string,
  author: CanvasAuthor,
  input: TidyCanvasInput,
  options: CanvasWriteOptions = {},
): Promise<TidyResult> {
  const { events, result } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit, now) => {
      const ids = input.positions.map((at) => at.nodeId);
      const found = await tx
        .select({ id: canvasNodes.id, roomId: canvasNodes.roomId })
        .from(canvasNodes)
        .where(inArray(canvasNodes.id, ids));
      const foreign = found.filter((node) => node.roomId !== roomId).map((node) => node.id);
      if (foreign.length) throw badRequest(`Node id(s) of another room: ${foreign.join(", ")}.`);
      const present = new Set(found.map((node) => node.id));
      const gone = ids.filter((id) => !present.has(id));
      const placing = input.positions.filter((at) => present.has(at.nodeId));
      if (placing.length === 0) return { gone, updatedAt: now.toISOString() };
      const rows = sql.join(
        placing.map((at) => sql`(${at.nodeId}, ${at.x}::double precision, ${at.y}::double precision)`),
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
      emit({
        type: "canvas.tidied",
        actor: author,
        correlationId: options.correlationId,
        payload: { positions, updatedAt: now.toISOString() },
      });
      return { gone, updatedAt: now.toISOString() };
    },
    { ...options, change: { type: "canvas.tidied", request: { by: author.id, input } } },
  );
  if (events.length === 0) return { positions: [], updatedAt: result!.updatedAt, gone: result!.gone };
  return { ...eventPayload(events, "canvas.tidied"), gone: result?.gone ?? [] };
}
