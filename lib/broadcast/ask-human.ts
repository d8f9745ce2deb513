import { and, asc, eq, ne } from "drizzle-orm";
import { type Agent, type Broadcast, broadcasts } from "@/db/schema";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import type { HumanQa } from "@/lib/protocol";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import { closeBroadcast } from "./close-broadcast";
import { expireOverdueBroadcasts } from "./end-orphaned-broadcasts";
import { hasUnseenAnswers, humanQaHistory, markAnswersSeen } from "./human-qa";
import {
  type AskOthersDeps,
  type AskOthersInput,
  type AskOthersResult,
  actorOf,
  closeQuestion,
  deferredResult,
  endQuestion,
  outcomeOf,
} from "./question";

// The people in a room answer one question at a time: each waits its turn in the order it
// was asked, and its countdown starts when it opens.

type Turn = { kind: "open"; deadline: Date } | { kind: "deferred"; history: HumanQa[] } | { kind: "wait" } | { kind: "ended" };

async function waitForChange(deps: AskOthersDeps, roomId: string, until: Date, signal: AbortSignal | undefined): Promise<void> {
  await new Promise<void>((resolve) => {
    const limit = Math.max(0, Math.min(deps.pollMs ?? 1000, until.getTime() - Date.now()));
    const done = () => {
      clearTimeout(timer);
      unsubscribe();
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, limit);
    const unsubscribe = deps.bus.subscribe(roomId, (delivery) => {
      if (delivery.kind === "event" && delivery.event.type.startsWith("broadcast.")) done();
    });
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Takes the room's single human-question slot when it is this broadcast's turn (oldest
 * waiting first). Overdue questions are timed out first, so an asker that crashed, open or
 * still waiting, cannot hold the room. The room row lock serialises this; a unique index
 * guards it as well.
 */
async function tryAcquire(deps: AskOthersDeps, broadcast: Broadcast, settings: RoomSettings, asker: Agent): Promise<Turn> {
  const { result } = await writeRoomEvents(deps.database.db, broadcast.roomId, async (tx, emit, at): Promise<Turn> => {
    await expireOverdueBroadcasts(tx, emit, broadcast.roomId, at, settings.broadcast_timeout);

    const [own] = await tx
      .select({ status: broadcasts.status, deadlineAt: broadcasts.deadlineAt })
      .from(broadcasts)
      .where(eq(broadcasts.id, broadcast.id));
    // Opened by the earlier call this one carries on (still running where its run was lost).
    if (own?.status === "open") return { kind: "open", deadline: own.deadlineAt! };
    if (own?.status !== "waiting_turn") return { kind: "ended" };
    const [first] = await tx
      .select({ id: broadcasts.id })
      .from(broadcasts)
      .where(and(eq(broadcasts.roomId, broadcast.roomId), eq(broadcasts.mode, "human"), eq(broadcasts.status, "waiting_turn")))
      .orderBy(asc(broadcasts.createdAt))
      .limit(1);
    if (first?.id !== broadcast.id) return { kind: "wait" };
    const [busy] = await tx
      .select({ id: broadcasts.id })
      .from(broadcasts)
      .where(
        and(
          eq(broadcasts.roomId, broadcast.roomId),
          eq(broadcasts.mode, "human"),
          eq(broadcasts.status, "open"),
          ne(broadcasts.id, broadcast.id),
        ),
      );
    if (busy) return { kind: "wait" };

    if (await hasUnseenAnswers(tx, broadcast.roomId, asker.id)) {
      const history = await humanQaHistory(tx, broadcast.roomId);
      await markAnswersSeen(tx, broadcast.roomId, asker.id, history.at(-1)!.answeredAt);
      await closeBroadcast(tx, emit, broadcast, "deferred", at, actorOf(asker));
      return { kind: "deferred", history: history.map(({ question, answer }) => ({ question, answer })) };
    }

    // The room gets the whole timeout to answer, however long the question waited for its turn.
    const deadline = new Date(at.getTime() + settings.broadcast_timeout * 1000);
    await tx.update(broadcasts).set({ status: "open", openedAt: at, deadlineAt: deadline }).where(eq(broadcasts.id, broadcast.id));
    emit({
      type: "broadcast.opened",
      actor: actorOf(asker),
      targetAgent: "human",
      correlationId: broadcast.correlationId,
      status: "pending",
      nextSteps: ["broadcast.response", "broadcast.closed"],
      payload: { broadcastId: broadcast.id, deadlineAt: deadline.toISOString(), openedAt: at.toISOString() },
    });
    return { kind: "open", deadline };
  });
  return result!;
}

/**
 * Puts a question to the people in the room and waits, within the question's deadline, for
 * its turn and then for an answer or a skip. An asker that has not seen the room's earlier
 * answers gets them (`deferred`) instead of a new prompt.
 */
export async function askHuman(
  deps: AskOthersDeps,
  input: AskOthersInput,
  broadcast: Broadcast,
  settings: RoomSettings,
): Promise<AskOthersResult> {
  // Until it opens, the question waits at most until its waiting limit; once open, until its own deadline.
  let deadline = broadcast.deadlineAt!;
  const stillWaiting = async (): Promise<boolean> => {
    if (input.signal?.aborted) await endQuestion(deps, input, broadcast, "cancelled");
    else if (Date.now() >= deadline.getTime()) await endQuestion(deps, input, broadcast, "timeout");
    else return true;
    return false;
  };
  try {
    // A question carried on from an earlier call may have had its turn already.
    let turn: Turn = broadcast.status === "open" ? { kind: "open", deadline } : { kind: "wait" };
    while (turn.kind === "wait" && (await stillWaiting())) {
      turn = await tryAcquire(deps, broadcast, settings, input.asker);
      if (turn.kind === "wait") await waitForChange(deps, input.roomId, deadline, input.signal);
    }
    if (turn.kind === "deferred") return deferredResult(turn.history);
    if (turn.kind === "open") deadline = turn.deadline;
    while (turn.kind === "open" && (await stillWaiting())) {
      const [row] = await deps.database.db.select({ status: broadcasts.status }).from(broadcasts).where(eq(broadcasts.id, broadcast.id));
      if (row?.status !== "open") break;
      await waitForChange(deps, input.roomId, deadline, input.signal);
    }
  } catch (error) {
    // Nobody is waiting for this question any more; leave nothing for the room to wait on.
    await closeQuestion(deps, input, broadcast, "cancelled").catch(() => {});
    throw error;
  }
  // The asker is told what the room sees: answered, skipped by a person, no answer in time,
  // or withdrawn because the asker stopped.
  return outcomeOf(deps, broadcast);
}
