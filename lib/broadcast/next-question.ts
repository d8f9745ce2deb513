import { and, asc, count, eq, inArray, or } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type Broadcast, type ReusedAnswer, broadcasts, rooms } from "@/db/schema";
import { type Emit, SYSTEM_ACTOR } from "@/lib/events/write-room-events";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { endBroadcast } from "./end-broadcast";
import { findEarlierAnswer } from "./human-qa";

// The people in a room answer one question at a time. The others wait their turn in the order
// they were asked; when the room is free, the first of them opens with the room's whole timeout.

const humanIn = (roomId: string) => and(eq(broadcasts.roomId, roomId), eq(broadcasts.mode, "human"));

/** Whether a waiting question's time ran out before its turn came (rows from before every question had a deadline: by age). */
function overdue(question: Pick<Broadcast, "deadlineAt" | "createdAt">, at: Date, timeoutSeconds: number): boolean {
  if (question.deadlineAt) return question.deadlineAt.getTime() <= at.getTime();
  return question.createdAt.getTime() < at.getTime() - timeoutSeconds * 1000;
}

/**
 * The deadline of a question joining the queue: one timeout for each question ahead of it
 * (each ends by its own) and its own. Once it opens, it gets the room's whole timeout from then.
 */
export async function queuedDeadline(tx: DbOrTx, roomId: string, at: Date, timeoutSeconds: number): Promise<Date> {
  const [ahead] = await tx
    .select({ value: count() })
    .from(broadcasts)
    .where(and(humanIn(roomId), inArray(broadcasts.status, ["waiting_turn", "open"])));
  return new Date(at.getTime() + timeoutSeconds * 1000 * (1 + Number(ahead?.value ?? 0)));
}

/** Ends a question with a person's earlier answer to the same question, instead of putting it to the room. */
export function giveEarlierAnswer(tx: DbOrTx, emit: Emit, question: Broadcast, earlier: ReusedAnswer, at: Date): Promise<boolean> {
  return endBroadcast(tx, emit, question, "reused", at, { id: question.agentId, name: question.agentName }, earlier);
}

/**
 * Opens the room's next waiting question when no question to the people is open: the oldest,
 * with the room's whole timeout from now. One whose time ran out while it waited ends as
 * timed out; one the people already answered (the same question, asked earlier) ends with
 * that answer; either way the next in line is considered. Call it behind the room lock (in a
 * room write): the lock, and a unique index, keep a second question from opening.
 */
export async function openNextQuestion(tx: DbOrTx, emit: Emit, roomId: string, at: Date): Promise<void> {
  const [[open], [room]] = await Promise.all([
    tx
      .select({ id: broadcasts.id })
      .from(broadcasts)
      .where(and(humanIn(roomId), eq(broadcasts.status, "open")))
      .limit(1),
    tx.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, roomId)),
  ]);
  if (open) return;
  const timeout = parseRoomSettings(room?.settings).broadcast_timeout;
  const waiting = await tx
    .select()
    .from(broadcasts)
    .where(and(humanIn(roomId), eq(broadcasts.status, "waiting_turn")))
    .orderBy(asc(broadcasts.createdAt), asc(broadcasts.id));
  for (const next of waiting) {
    if (overdue(next, at, timeout)) {
      await endBroadcast(tx, emit, next, "timeout", at, SYSTEM_ACTOR);
      continue;
    }
    // A question a person put to the room again is theirs to answer anew.
    const earlier = next.askedAgainOf ? null : await findEarlierAnswer(tx, roomId, next.questionKey);
    if (earlier) {
      await giveEarlierAnswer(tx, emit, next, earlier, at);
      continue;
    }
    const deadline = new Date(at.getTime() + timeout * 1000);
    await tx.update(broadcasts).set({ status: "open", openedAt: at, deadlineAt: deadline }).where(eq(broadcasts.id, next.id));
    emit({
      type: "broadcast.opened",
      actor: { id: next.agentId, name: next.agentName },
      targetAgent: "human",
      correlationId: next.correlationId,
      status: "pending",
      nextSteps: ["broadcast.response", "broadcast.closed"],
      payload: { broadcastId: next.id, deadlineAt: deadline.toISOString(), openedAt: at.toISOString() },
    });
    return;
  }
}

/**
 * Whether the room's queue needs a hand: nothing open while questions wait, or a question
 * whose deadline passed (its asker gone) still holding the room. Read without the room lock, so
 * a waiting asker looks before it writes.
 */
export async function queueNeedsMoving(db: DbOrTx, roomId: string, at: Date): Promise<boolean> {
  const rows = await db
    .select({ status: broadcasts.status, deadlineAt: broadcasts.deadlineAt })
    .from(broadcasts)
    .where(and(humanIn(roomId), or(eq(broadcasts.status, "open"), eq(broadcasts.status, "waiting_turn"))));
  const open = rows.find((row) => row.status === "open");
  if (!open) return rows.length > 0;
  return open.deadlineAt !== null && open.deadlineAt.getTime() <= at.getTime();
}
