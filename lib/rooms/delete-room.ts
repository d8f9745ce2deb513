import { eq } from "drizzle-orm";
import type { Db } from "@/db";
import { rooms } from "@/db/schema";
import { notFound } from "@/lib/errors";

/** Deletes a room and everything in it. Returns nothing; callers announce it to live viewers. */
export async function deleteRoom(db: Db, roomId: string): Promise<void> {
  const deleted = await db.delete(rooms).where(eq(rooms.id, roomId)).returning({ id: rooms.id });
  if (deleted.length === 0) throw notFound("Room");
}
