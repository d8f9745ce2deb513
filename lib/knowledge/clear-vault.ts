import { and, eq } from "drizzle-orm";
import type { Db } from "@/db";
import { agents } from "@/db/schema";
import { notFound } from "@/lib/errors";
import { ADMIN_ACTOR, writeRoomEvents } from "@/lib/events/write-room-events";
import { clearVaultRows, lockVault } from "./vault";

/**
 * Empties the knowledge vault of a room's agent — for every room that shares its identity —
 * and records it in that room (`knowledge.cleared`), so the change has an author and a time.
 */
export async function clearVault(db: Db, roomId: string, agentId: string): Promise<{ identity: string }> {
  const [agent] = await db.select().from(agents).where(and(eq(agents.roomId, roomId), eq(agents.id, agentId)));
  if (!agent) throw notFound("Agent");
  await writeRoomEvents(db, roomId, async (tx, emit) => {
    await lockVault(tx, agent.identity);
    await clearVaultRows(tx, agent.identity);
    emit({ type: "knowledge.cleared", actor: ADMIN_ACTOR, payload: { agentId, identity: agent.identity } });
  });
  return { identity: agent.identity };
}
