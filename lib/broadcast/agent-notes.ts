import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { type AgentNoteKind, type ShownNote, agentNotes } from "@/db/schema";
import { isolatedAgentIds } from "@/lib/brainstorm/stage-context";
import { type CarriedChanges, writeRoomEvents } from "@/lib/events/write-room-events";

/** Leaves a note for an agent, shown from its next step on or in its next run. */
export async function leaveNote(
  db: DbOrTx,
  input: { roomId: string; agentId: string; text: string; kind?: AgentNoteKind; broadcastId?: string | null; at?: Date },
): Promise<void> {
  await db.insert(agentNotes).values({
    id: randomUUID(),
    roomId: input.roomId,
    agentId: input.agentId,
    kind: input.kind ?? "note",
    text: input.text,
    broadcastId: input.broadcastId ?? null,
    createdAt: input.at ?? new Date(),
  });
}

/** Who is reading their notes: the agent, the run and the step whose model call shows them. */
export interface NoteReader {
  roomId: string;
  agentId: string;
  agentName: string;
  runId: string;
  /** The run's workflow, which the delivery belongs to. */
  correlationId?: string;
  step: number;
  /** The run's model calls not yet written, carried by this write when it makes one. */
  carry?: CarriedChanges;
}

/** A note not yet delivered nor withdrawn by its sender. */
const pendingFor = (agentId: string) =>
  and(eq(agentNotes.agentId, agentId), isNull(agentNotes.deliveredAt), isNull(agentNotes.cancelledAt));

/**
 * Hands an agent its unread notes — shadows' answers, participants' messages, answers to its
 * help requests — in the order they were left, and marks them read by this run at this step.
 * Participants' messages are announced as delivered (`command.delivered`). Each note is
 * delivered once: parallel readers skip the notes another holds. An agent working alone in a
 * brainstorm's divergent thinking is handed none: nothing from outside may shape its ideas, so
 * what was left for it before the stage began waits until the ideas are released.
 */
export async function takeNotes(db: Db, reader: NoteReader): Promise<ShownNote[]> {
  return (await notesWaiting(db, reader.agentId)) ? takeWaitingNotes(db, reader) : [];
}

/** Whether any note waits for an agent: checked before taking a lock, as almost every step finds none. */
export async function notesWaiting(db: Db, agentId: string): Promise<boolean> {
  const [waiting] = await db.select({ id: agentNotes.id }).from(agentNotes).where(pendingFor(agentId)).limit(1);
  return waiting !== undefined;
}

/** `takeNotes` once `notesWaiting` found some. */
export async function takeWaitingNotes(db: Db, reader: NoteReader): Promise<ShownNote[]> {
  const { result } = await writeRoomEvents(
    db,
    reader.roomId,
    async (tx, emit, at) => {
      if ((await isolatedAgentIds(tx, reader.roomId)).has(reader.agentId)) return [];
      const pending = await tx
        .select()
        .from(agentNotes)
        .where(pendingFor(reader.agentId))
        .orderBy(asc(agentNotes.createdAt), asc(agentNotes.ordinal))
        .for("update", { skipLocked: true });
      if (pending.length === 0) return [];
      await tx
        .update(agentNotes)
        .set({ deliveredAt: at, deliveredToRunId: reader.runId, deliveredAtStep: reader.step })
        .where(
          inArray(
            agentNotes.id,
            pending.map((note) => note.id),
          ),
        );
      const commandIds = pending.filter((note) => note.kind === "command").map((note) => note.id);
      if (commandIds.length) {
        emit({
          type: "command.delivered",
          actor: { id: reader.agentId, name: reader.agentName },
          correlationId: reader.correlationId,
          payload: { commandIds, agentId: reader.agentId, runId: reader.runId, step: reader.step },
        });
      }
      return pending.map(({ id, text, kind }) => ({ id, text, kind }));
    },
    { carry: reader.carry },
  );
  return result ?? [];
}

/**
 * The notes already handed to a run, oldest first. A run taken over from a worker that died
 * shows again those its earlier attempts took but could not save with a step.
 */
export async function notesDeliveredTo(db: Db, runId: string): Promise<ShownNote[]> {
  return db
    .select({ id: agentNotes.id, text: agentNotes.text, kind: agentNotes.kind })
    .from(agentNotes)
    .where(eq(agentNotes.deliveredToRunId, runId))
    .orderBy(asc(agentNotes.deliveredAt), asc(agentNotes.createdAt), asc(agentNotes.ordinal));
}

/** The note an agent gets when its shadow answered a question while it was busy. */
export function shadowNote(asker: string, question: string, answer: string): string {
  return (
    `[INFO] While you were working, ${asker} asked: "${question}" ` +
    `Your shadow agent responded: "${answer}" (This is just for your awareness - you may continue your work.)`
  );
}
