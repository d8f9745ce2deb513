import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db, DbOrTx } from "@/db";
import { type Seat, broadcastResponses, broadcasts } from "@/db/schema";
import { conflict, notFound } from "@/lib/errors";
import { eventPayload, type WriteRequestOptions, writeRoomEvents } from "@/lib/events/write-room-events";
import { type BroadcastResponseDto, LIMITS } from "@/lib/protocol";
import { responseToDto } from "./broadcast-dto";
import { leaveNote } from "./agent-notes";
import { closeBroadcast } from "./close-broadcast";

export const answerInputSchema = z.strictObject({
  answer: z.string().trim().min(1, "Write an answer, or skip the question").max(LIMITS.noteText),
});

/** The room's open human question `broadcastId`, or the reason it cannot be answered. */
async function openQuestion(tx: DbOrTx, roomId: string, broadcastId: string) {
  const [broadcast] = await tx
    .select()
    .from(broadcasts)
    .where(and(eq(broadcasts.id, broadcastId), eq(broadcasts.roomId, roomId), eq(broadcasts.mode, "human")));
  if (!broadcast) throw notFound(`Question ${broadcastId}`);
  if (broadcast.status !== "open") throw conflict(`This question is no longer open (${broadcast.status}).`);
  return broadcast;
}

/** The note an agent gets when the people answered its question afresh, after it had been given an earlier answer. */
function askedAgainNote(question: string, person: string, answer: string): string {
  return (
    `[INFO] The people put your question "${question}" to the room again, and ${person} answered: "${answer}" ` +
    "(This replaces the earlier answer you were given.)"
  );
}

/**
 * A participant answers the room's open human question. Refused when the question is no
 * longer open or its time is up; the asking agent, wherever it runs, sees the answer. A
 * retry with the same idempotency key returns the answer already given.
 */
export async function answerHumanQuestion(
  db: Db,
  roomId: string,
  broadcastId: string,
  seat: Seat,
  answer: string,
  options: WriteRequestOptions = {},
): Promise<BroadcastResponseDto> {
  const { events, result } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit, at) => {
      const broadcast = await openQuestion(tx, roomId, broadcastId);
      if (broadcast.deadlineAt && broadcast.deadlineAt < at) throw conflict("Time is up for this question.");
      const [row] = await tx
        .insert(broadcastResponses)
        .values({
          id: randomUUID(),
          broadcastId,
          roomId,
          responderId: `human:${seat.id}`,
          responderName: seat.displayName,
          isHuman: true,
          content: answer,
          createdAt: at,
        })
        .returning();
      // Put to the room again after an earlier answer was given: the asker has moved on, so the fresh answer follows it as a note.
      if (broadcast.askedAgainOf) {
        await leaveNote(tx, {
          roomId,
          agentId: broadcast.agentId,
          broadcastId,
          at,
          text: askedAgainNote(broadcast.question, seat.displayName, answer),
        });
      }
      const actor = { id: `human:${seat.id}`, name: seat.displayName };
      emit({
        type: "broadcast.response",
        actor,
        targetAgent: broadcast.agentId,
        correlationId: broadcast.correlationId,
        payload: { response: responseToDto(row!) },
      });
      await closeBroadcast(tx, emit, broadcast, "complete", at, actor);
      return responseToDto(row!);
    },
    { ...options, change: { type: "broadcast.response", subject: broadcastId, request: { by: seat.id, answer } } },
  );
  return result ?? eventPayload(events, "broadcast.response").response;
}

/**
 * A participant skips the open question: the agent gets no answer and carries on. A retry
 * with the same idempotency key does nothing.
 */
export async function skipHumanQuestion(db: Db, roomId: string, broadcastId: string, seat: Seat, options: WriteRequestOptions = {}) {
  await writeRoomEvents(
    db,
    roomId,
    async (tx, emit, at) => {
      const broadcast = await openQuestion(tx, roomId, broadcastId);
      await closeBroadcast(tx, emit, broadcast, "skipped", at, { id: `human:${seat.id}`, name: seat.displayName });
    },
    { ...options, change: { type: "broadcast.closed", subject: broadcastId, request: { by: seat.id } } },
  );
}
