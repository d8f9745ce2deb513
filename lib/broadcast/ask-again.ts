import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Db } from "@/db";
import { type Seat, broadcasts, rooms } from "@/db/schema";
import { conflict, notFound } from "@/lib/errors";
import { eventPayload, type WriteRequestOptions, writeRoomEvents } from "@/lib/events/write-room-events";
import type { BroadcastDto } from "@/lib/protocol";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { broadcastToDto } from "./broadcast-dto";
import { openNextQuestion, queuedDeadline } from "./next-question";

/**
 * A participant puts a question that was given an earlier answer to the room after all ("ask us
 * again"): the same question joins the queue as a new one, opens in its turn with the room's
 * whole timeout, and its answer reaches the agent that asked as a note (the agent has moved on
 * with the earlier answer meanwhile). A question can be asked again once; a retry with the same
 * idempotency key returns the question it filed.
 */
export async function askAgain(
  db: Db,
  roomId: string,
  broadcastId: string,
  seat: Seat,
  options: WriteRequestOptions = {},
): Promise<BroadcastDto> {
  const { events, result } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit, at) => {
      const [[reused], [room]] = await Promise.all([
        tx
          .select()
          .from(broadcasts)
          .where(and(eq(broadcasts.id, broadcastId), eq(broadcasts.roomId, roomId), eq(broadcasts.mode, "human"))),
        tx.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, roomId)),
      ]);
      if (!reused) throw notFound(`Question ${broadcastId}`);
      if (reused.status !== "reused") {
        throw conflict("Only a question that was given an earlier answer can be asked again; this one was put to the room.");
      }
      const [already] = await tx.select({ id: broadcasts.id }).from(broadcasts).where(eq(broadcasts.askedAgainOf, reused.id));
      if (already) throw conflict("This question has already been put to the room again.");
      const deadline = await queuedDeadline(tx, roomId, at, parseRoomSettings(room?.settings).broadcast_timeout);
      const [row] = await tx
        .insert(broadcasts)
        .values({
          id: randomUUID(),
          roomId,
          // Nobody's run waits for it: the answer goes to the agent as a note.
          runId: null,
          agentId: reused.agentId,
          agentName: reused.agentName,
          mode: "human",
          question: reused.question,
          options: reused.options,
          status: "waiting_turn",
          correlationId: reused.correlationId,
          deadlineAt: deadline,
          createdAt: at,
          questionKey: reused.questionKey,
          askedAgainOf: reused.id,
        })
        .returning();
      emit({
        type: "broadcast.asked",
        actor: { id: `human:${seat.id}`, name: seat.displayName },
        correlationId: reused.correlationId,
        status: "pending",
        targetAgent: "human",
        payload: { broadcast: broadcastToDto(row!) },
      });
      await openNextQuestion(tx, emit, roomId, at);
      return broadcastToDto(row!);
    },
    { ...options, change: { type: "broadcast.asked", subject: broadcastId, request: { by: seat.id, again: true } } },
  );
  return result ?? eventPayload(events, "broadcast.asked").broadcast;
}
