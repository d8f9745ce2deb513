import { eq } from "drizzle-orm";
import type { Db } from "@/db";
import { rooms } from "@/db/schema";
import { adminActionInsert } from "@/lib/admin/admin-actions";
import { notFound } from "@/lib/errors";

/**
 * Deletes a room and everything in it, and records who deleted it in the admin audit trail,
 * which outlives the room. Returns nothing; callers announce it to live viewers.
 */
export async function deleteRoom(db: Db, roomId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [deleted] = await tx
      .delete(rooms)
      .where(eq(rooms.id, roomId))
      .returning({ title: rooms.title, lastSeq: rooms.lastSeq, template: rooms.template });
    if (!deleted) throw notFound("Room");
    await adminActionInsert(tx, {
      action: "room.deleted",
      roomId,
      roomTitle: deleted.title,
      summary: `deleted “${deleted.title}” (${deleted.lastSeq} events)`,
      details: { template: deleted.template, events: deleted.lastSeq },
    });
  });
}
