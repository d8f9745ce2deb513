import { and, eq, isNull } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { agentNotes, runs } from "@/db/schema";
import { cancelQueuedRun } from "@/lib/agents/cancel-run";
import { seatActor } from "@/lib/auth/seats";
import { conflict, forbidden, notFound } from "@/lib/errors";
import { type Actor, type Emit, writeRoomEvents } from "@/lib/events/write-room-events";
import { isPending } from "./send-command";

/**
 * Withdraws a message its sender sent while it still waits for its agent (`command.cancelled`).
 * One already delivered is a 409; someone else's a 403. A run started to act on messages that
 * has not started yet, and has no other message left to read, is cancelled in the same write
 * (`run.finished`, cancelled); its id is returned.
 */
export async function cancelCommand(
  db: Db,
  roomId: string,
  seat: { id: string; displayName: string },
  commandId: string,
): Promise<{ cancelledRunId: string | null }> {
  const actor = seatActor(seat);
  const { result } = await writeRoomEvents(db, roomId, async (tx, emit, at) => {
    const [note] = await tx
      .select()
      .from(agentNotes)
      .where(and(eq(agentNotes.id, commandId), eq(agentNotes.roomId, roomId), eq(agentNotes.kind, "command")))
      .for("update");
    if (!note) throw notFound(`Message ${commandId}`);
    if (note.senderId !== actor.id) throw forbidden("Only the person who sent a message may withdraw it.");
    if (note.cancelledAt) return null;
    if (note.deliveredAt) throw conflict("This message has already reached its agent; it can no longer be withdrawn.");
    await tx
      .update(agentNotes)
      .set({ cancelledAt: at })
      .where(and(eq(agentNotes.id, commandId), isNull(agentNotes.deliveredAt)));
    emit({ type: "command.cancelled", actor, targetAgent: note.agentId, payload: { commandId, agentId: note.agentId } });
    return cancelRunLeftEmpty(tx, emit, at, note.agentId, actor);
  });
  return { cancelledRunId: result ?? null };
}

/**
 * The agent's queued run started to act on messages (`new_run`, or a follow-up for messages a
 * cancelled run left), cancelled when the withdrawal leaves it nothing to read: no other message
 * to the agent waits. One that has started — even if it was handed back to the queue since — has
 * read its messages and is left alone. The room is locked, so no worker claims it meanwhile.
 */
async function cancelRunLeftEmpty(tx: DbOrTx, emit: Emit, at: Date, agentId: string, by: Actor): Promise<string | null> {
  const [[queued], [waiting]] = await Promise.all([
    tx
      .select({ id: runs.id })
      .from(runs)
      .where(and(eq(runs.agentId, agentId), eq(runs.status, "queued"), eq(runs.trigger, "command"), isNull(runs.startedAt)))
      .limit(1)
      .for("update"),
    tx
      .select({ id: agentNotes.id })
      .from(agentNotes)
      .where(and(eq(agentNotes.agentId, agentId), eq(agentNotes.kind, "command"), isPending()))
      .limit(1),
  ]);
  if (!queued || waiting) return null;
  return (await cancelQueuedRun(tx, emit, at, queued.id, by)) ? queued.id : null;
}
