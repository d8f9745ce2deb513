import { randomUUID } from "node:crypto";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { type ShownNote, agentNotes } from "@/db/schema";

/** Leaves a note for an agent, shown from its next step on or in its next run. */
export async function leaveNote(
  db: DbOrTx,
  input: { roomId: string; agentId: string; text: string; broadcastId?: string | null; at?: Date },
): Promise<void> {
  await db.insert(agentNotes).values({
    id: randomUUID(),
    roomId: input.roomId,
    agentId: input.agentId,
    text: input.text,
    broadcastId: input.broadcastId ?? null,
    createdAt: input.at ?? new Date(),
  });
}

/** Hands an agent its unread notes, oldest first, and marks them read by this run. */
export async function takeNotes(db: Db, agentId: string, runId: string): Promise<ShownNote[]> {
  // Checked before taking a lock: almost every step finds nothing waiting.
  const [waiting] = await db
    .select({ id: agentNotes.id })
    .from(agentNotes)
    .where(and(eq(agentNotes.agentId, agentId), isNull(agentNotes.deliveredAt)))
    .limit(1);
  if (!waiting) return [];
  return db.transaction(async (tx) => {
    const pending = await tx
      .select()
      .from(agentNotes)
      .where(and(eq(agentNotes.agentId, agentId), isNull(agentNotes.deliveredAt)))
      .orderBy(asc(agentNotes.createdAt))
      .for("update", { skipLocked: true });
    if (pending.length === 0) return [];
    const now = new Date();
    for (const note of pending) {
      await tx
        .update(agentNotes)
        .set({ deliveredAt: now, deliveredToRunId: runId })
        .where(eq(agentNotes.id, note.id));
    }
    return pending.map(({ id, text }) => ({ id, text }));
  });
}

/**
 * The notes already handed to a run, oldest first. A run taken over from a worker that died
 * shows again those its earlier attempts took but could not save with a step.
 */
export async function notesDeliveredTo(db: Db, runId: string): Promise<ShownNote[]> {
  return db
    .select({ id: agentNotes.id, text: agentNotes.text })
    .from(agentNotes)
    .where(eq(agentNotes.deliveredToRunId, runId))
    .orderBy(asc(agentNotes.deliveredAt), asc(agentNotes.createdAt));
}

/** The note an agent gets when its shadow answered a question while it was busy. */
export function shadowNote(asker: string, question: string, answer: string): string {
  return (
    `[INFO] While you were working, ${asker} asked: "${question}" ` +
    `Your shadow agent responded: "${answer}" (This is just for your awareness - you may continue your work.)`
  );
}
