import { eq } from "drizzle-orm";
import { type Broadcast, broadcasts } from "@/db/schema";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import { ACTIVE_STATUSES } from "./close-broadcast";
import { expireOverdueBroadcasts } from "./end-orphaned-broadcasts";
import { openNextQuestion, queueNeedsMoving } from "./next-question";
import { type AskOthersDeps, type AskOthersInput, type AskOthersResult, closeQuestion, endQuestion, outcomeOf } from "./question";

// The people in a room answer one question at a time: each waits its turn in the order it
// was asked, and its countdown starts when it opens. Whoever ends the open question opens the
// next (see next-question.ts); the asker only waits, and moves the queue on when the question
// ahead was left behind by an asker that is gone.

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
 * Times out the room's overdue questions and opens the next one, when a look without the lock
 * says the queue is stuck. True when it wrote.
 */
async function moveQueue(deps: AskOthersDeps, roomId: string, settings: RoomSettings): Promise<boolean> {
  if (!(await queueNeedsMoving(deps.database.db, roomId, new Date()))) return false;
  await writeRoomEvents(deps.database.db, roomId, async (tx, emit, at) => {
    await expireOverdueBroadcasts(tx, emit, roomId, at, settings.broadcast_timeout);
    await openNextQuestion(tx, emit, roomId, at);
  });
  return true;
}

/**
 * Waits, within the question's deadline, for a question to the people to take its turn and
 * then for an answer or a skip. Its deadline while it waits is at most one timeout for each
 * question ahead of it; once it opens, the room's whole timeout from then.
 */
export async function askHuman(
  deps: AskOthersDeps,
  input: AskOthersInput,
  broadcast: Broadcast,
  settings: RoomSettings,
): Promise<AskOthersResult> {
  const db = deps.database.db;
  try {
    for (;;) {
      const [row] = await db.select().from(broadcasts).where(eq(broadcasts.id, broadcast.id));
      if (!row || !ACTIVE_STATUSES.includes(row.status)) break;
      const deadline = row.deadlineAt ?? new Date(row.createdAt.getTime() + settings.broadcast_timeout * 1000);
      if (input.signal?.aborted) {
        await endQuestion(deps, input, broadcast, "cancelled");
        break;
      }
      if (Date.now() >= deadline.getTime()) {
        await endQuestion(deps, input, broadcast, "timeout");
        break;
      }
      if (row.status === "waiting_turn" && (await moveQueue(deps, input.roomId, settings))) continue;
      await waitForChange(deps, input.roomId, deadline, input.signal);
    }
  } catch (error) {
    // Nobody is waiting for this question any more; leave nothing for the room to wait on.
    await closeQuestion(deps, input, broadcast, "cancelled").catch(() => {});
    throw error;
  }
  // The asker is told what the room sees: answered (now or earlier), skipped by a person, no
  // answer in time, or withdrawn because the asker stopped.
  return outcomeOf(deps, broadcast);
}
