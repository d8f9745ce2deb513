import { eq } from "drizzle-orm";
import type { Db } from "@/db";
import { agents, roomAsks } from "@/db/schema";
import { notFound } from "@/lib/errors";
import { type AskCounts, tallyAsks } from "@/lib/protocol/asks";
import { findRoom } from "./list-rooms";

/**
 * Who asked whom over a room's whole history, from the running count its writes keep
 * (`room_asks`): one index range of a few rows per pair of members, however long the room has
 * run. One read-only snapshot, so `through` and the counts agree; the page adds what it
 * receives after `through`.
 */
export async function countAsks(db: Db, roomId: string): Promise<AskCounts> {
  return db.transaction(
    async (tx) => {
      const room = await findRoom(tx, roomId);
      if (!room) throw notFound("Room");
      const [team, counted] = await Promise.all([
        tx.select({ id: agents.id, persona: agents.persona }).from(agents).where(eq(agents.roomId, roomId)),
        tx.select().from(roomAsks).where(eq(roomAsks.roomId, roomId)),
      ]);
      const asks = counted.map((row) => ({
        from: row.asker,
        to: row.targetKind === "persona" ? { persona: row.target } : { id: row.target },
        kind: row.kind,
        count: row.count,
      }));
      return { through: room.lastSeq, edges: tallyAsks([], asks, team) };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
