import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db";
import { agentNotes } from "@/db/schema";
import { seatActor } from "@/lib/auth/seats";
import { conflict, forbidden, notFound } from "@/lib/errors";
import { writeRoomEvents } from "@/lib/events/write-room-events";

/**
 * Withdraws a message its sender sent while it still waits for its agent (`command.cancelled`).
 * One already delivered is a 409; someone else's a 403.
 */
export async function cancelCommand(db: Db, roomId: string, seat: { id: string; displayName: string }, commandId: string) {
  const actor = seatActor(seat);
  await writeRoomEvents(db, roomId, async (tx, emit, at) => {
    const [note] = await tx
      .select()
      .from(agentNotes)
      .where(and(eq(agentNotes.id, commandId), eq(agentNotes.roomId, roomId), eq(agentNotes.kind, "command")))
      .for("update");
    if (!note) throw notFound(`Message ${commandId}`);
    if (note.senderId !== actor.id) throw forbidden("Only the person who sent a message may withdraw it.");
    if (note.cancelledAt) return;
    if (note.deliveredAt) throw conflict("This message has already reached its agent; it can no longer be withdrawn.");
    await tx
      .update(agentNotes)
      .set({ cancelledAt: at })
      .where(and(eq(agentNotes.id, commandId), isNull(agentNotes.deliveredAt)));
    emit({ type: "command.cancelled", actor, targetAgent: note.agentId, payload: { commandId, agentId: note.agentId } });
  });
}
