import { and, eq } from "drizzle-orm";
import type { Db } from "@/db";
import { agents } from "@/db/schema";
import { adminActionInsert } from "@/lib/admin/admin-actions";
import { notFound } from "@/lib/errors";
import { ADMIN_ACTOR, writeRoomEvents } from "@/lib/events/write-room-events";
import { clearVaultRows, lockVault } from "./vault";

/**
 * Empties the knowledge vault of a room's agent — for every room that shares its identity —
 * and records it in that room (`knowledge.cleared`), so the change has an author and a time.
 */
export async function clearVault(db: Db, roomId: string, agentId: string): Promise<{ identity: string }> {
  const [agent] = await db
    .select()
    .from(agents)
    .where(and(eq(agents.roomId, roomId), eq(agents.id, agentId)));
  if (!agent) throw notFound("Agent");
  await writeRoomEvents(db, roomId, async (tx, emit, at, defer) => {
    await lockVault(tx, agent.identity);
    await clearVaultRows(tx, agent.identity);
    emit({ type: "knowledge.cleared", actor: ADMIN_ACTOR, payload: { agentId, identity: agent.identity } });
    defer(
      adminActionInsert(
        tx,
        {
          action: "vault.cleared",
          roomId,
          summary: `cleared ${agent.name}'s knowledge vault (${agent.identity})`,
          details: { agentId, identity: agent.identity },
        },
        at,
      ),
    );
  });
  return { identity: agent.identity };
}
