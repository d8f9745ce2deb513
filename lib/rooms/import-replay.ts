import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { events, rooms } from "@/db/schema";
import { getEnv } from "@/lib/env";
import { conflict } from "@/lib/errors";
import { readRoomLog } from "@/lib/events/room-log-file";
import { LIMITS } from "@/lib/protocol";

/** Events stored per statement: well under PostgreSQL's 65,535 parameters a statement. */
const INSERT_BATCH = 1000;

/** How much a replay may hold, as the environment sets it (docs/behaviour/time-travel.md). */
export function replayLimits(env = getEnv()) {
  return { maxBytes: env.PARLEY_REPLAY_MAX_MB * 1024 * 1024, maxEvents: env.PARLEY_REPLAY_MAX_EVENTS };
}

/**
 * Makes a read-only replay room from a room log file exported by any Parley: the file is read
 * and checked whole first (`readRoomLog`), so a malformed or tampered one is refused with the
 * line at fault and nothing is written. The replay holds the file's events, numbered as they
 * were, under a new room and new event ids; it has no agents and no seats, so nothing can run or
 * be written in it, and its timeline plays the original's moments exactly.
 */
export async function importReplay(db: Db, text: string, options: { now?: () => Date; maxEvents?: number } = {}) {
  const log = readRoomLog(text, { maxEvents: options.maxEvents ?? replayLimits().maxEvents });
  const now = (options.now ?? (() => new Date()))();
  const roomId = randomUUID();
  const { room } = log.header;
  const last = log.events.at(-1)!;
  const title = room.title.slice(0, LIMITS.roomTitle) || "Replay";
  await db.transaction(async (tx) => {
    await tx.insert(rooms).values({
      id: roomId,
      title,
      template: room.template,
      // Nothing is scheduled in a replay: it has no agents of its own.
      settings: { scheduler_enabled: false },
      lastSeq: last.seq,
      createdAt: now,
      // Its last activity is the original's, so a replay does not pass for the room most recently at work.
      lastActivityAt: new Date(last.timestamp),
      replayOf: {
        roomId: room.id,
        title: room.title,
        template: room.template,
        exportedAt: log.header.exportedAt,
        digest: log.digest,
        events: log.events.length,
      },
    });
    // The copy's events get ids of their own; each still names its cause, by the cause's new id.
    const copiedIds = new Map(log.events.map((event) => [event.id, randomUUID()]));
    for (let start = 0; start < log.events.length; start += INSERT_BATCH) {
      await tx.insert(events).values(
        log.events.slice(start, start + INSERT_BATCH).map((event) => ({
          id: copiedIds.get(event.id) ?? randomUUID(),
          roomId,
          seq: event.seq,
          correlationId: event.correlation_id,
          causationId: event.causation_id ? (copiedIds.get(event.causation_id) ?? null) : null,
          traceParent: event.trace_parent ?? null,
          agent: event.agent,
          agentName: event.agent_name,
          targetAgent: event.target_agent,
          type: event.type,
          status: event.status,
          payload: event.payload,
          nextSteps: event.next_steps,
          errorDetails: event.error_details,
          createdAt: new Date(event.timestamp),
        })),
      );
    }
  });
  return { room: { id: roomId, title, events: log.events.length, original: { id: room.id, title: room.title } } };
}

/** Refuses a seat in a replay room (409): a replay is read-only, so nobody can write in it. */
export async function refuseReplay(db: DbOrTx, roomId: string): Promise<void> {
  const [room] = await db.select({ replayOf: rooms.replayOf }).from(rooms).where(eq(rooms.id, roomId));
  if (room?.replayOf) throw conflict("This room is a replay of a shared file: it is read-only. An admin may continue it in a new room.");
}
