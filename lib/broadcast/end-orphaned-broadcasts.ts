import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { type Broadcast, broadcasts, rooms } from "@/db/schema";
import { type Actor, type Emit, SYSTEM_ACTOR, writeRoomEvents } from "@/lib/events/write-room-events";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { closeBroadcast, isActive } from "./close-broadcast";

/**
 * Cancels the questions a run asked and is still waiting on: called when the run ends or
 * starts over, since nobody will collect their answers. Without this a crashed or cancelled
 * asker would leave them pending, counted against its limit and shown to the room as open.
 */
export async function cancelRunBroadcasts(tx: DbOrTx, emit: Emit, runId: string, at: Date, actor: Actor): Promise<void> {
  await cancelBroadcasts(tx, emit, await openBroadcastsOf(tx, runId), at, actor);
}

/** The questions a run asked that are still open: read first, so a write can send it behind its room lock. */
export function openBroadcastsOf(tx: DbOrTx, runId: string) {
  return tx
    .select()
    .from(broadcasts)
    .where(and(eq(broadcasts.runId, runId), isActive));
}

/** Cancels questions `openBroadcastsOf` found (see `cancelRunBroadcasts`). */
export async function cancelBroadcasts(tx: DbOrTx, emit: Emit, orphans: Broadcast[], at: Date, actor: Actor): Promise<void> {
  for (const orphan of orphans) await closeBroadcast(tx, emit, orphan, "cancelled", at, actor);
}

/**
 * Times out the room's questions, of either mode, whose deadline has passed: their askers
 * have stopped waiting, or are gone. Rows written before every question had a deadline get
 * one from the room's timeout.
 */
export async function expireOverdueBroadcasts(tx: DbOrTx, emit: Emit, roomId: string, at: Date, timeoutSeconds: number): Promise<void> {
  const undatedCutoff = new Date(at.getTime() - timeoutSeconds * 1000);
  const overdue = await tx
    .select()
    .from(broadcasts)
    .where(
      and(
        eq(broadcasts.roomId, roomId),
        isActive,
        or(lt(broadcasts.deadlineAt, at), and(isNull(broadcasts.deadlineAt), lt(broadcasts.createdAt, undatedCutoff))),
      ),
    );
  for (const stale of overdue) await closeBroadcast(tx, emit, stale, "timeout", at, SYSTEM_ACTOR);
}

/**
 * Times out overdue questions in every room, so a question whose asker is gone ends at its
 * deadline and leaves the page, rather than when someone next asks in that room. Run
 * periodically by one instance (the scheduler); live askers close their own questions, and
 * whichever close comes first wins.
 */
export async function sweepOverdueBroadcasts(
  db: Db,
  options: { now?: () => Date; onError?: (error: unknown) => void } = {},
): Promise<void> {
  const now = options.now ?? (() => new Date());
  const candidates = await db
    .selectDistinct({ roomId: broadcasts.roomId })
    .from(broadcasts)
    .where(and(isActive, or(lt(broadcasts.deadlineAt, now()), isNull(broadcasts.deadlineAt))));
  for (const { roomId } of candidates) {
    // One room failing (or deleted meanwhile) does not keep the others' questions open.
    await writeRoomEvents(
      db,
      roomId,
      async (tx, emit, at) => {
        const [room] = await tx.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, roomId));
        await expireOverdueBroadcasts(tx, emit, roomId, at, parseRoomSettings(room?.settings).broadcast_timeout);
      },
      { now },
    ).catch((error) => options.onError?.(error));
  }
}
