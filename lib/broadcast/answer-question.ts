import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { type Seat, broadcastResponses, broadcasts } from "@/db/schema";
import { conflict, notFound } from "@/lib/errors";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import { LIMITS } from "@/lib/protocol";
import { responseToDto } from "./broadcast-dto";
import { markAnswersSeen } from "./human-qa";

export const answerInputSchema = z.strictObject({
  answer: z.string().trim().min(1, "Write an answer, or skip the question").max(LIMITS.noteText),
});

/**
 * A participant answers the room's open human question. Refused when the question is no
 * longer open or its time is up; the asking agent, wherever it runs, sees the answer.
 */
export async function answerHumanQuestion(db: Db, roomId: string, broadcastId: string, seat: Seat, answer: string) {
  const { result } = await writeRoomEvents(db, roomId, async (tx, emit, at) => {
    const [broadcast] = await tx
      .select()
      .from(broadcasts)
      .where(and(eq(broadcasts.id, broadcastId), eq(broadcasts.roomId, roomId), eq(broadcasts.mode, "human")));
    if (!broadcast) throw notFound(`Question ${broadcastId}`);
    if (broadcast.status !== "open") throw conflict(`This question is no longer open (${broadcast.status}).`);
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
    await tx.update(broadcasts).set({ status: "complete", closedAt: at }).where(eq(broadcasts.id, broadcastId));
    await markAnswersSeen(tx, roomId, broadcast.agentId, at);
    const actor = { id: `human:${seat.id}`, name: seat.displayName };
    emit({
      type: "broadcast.response",
      actor,
      targetAgent: broadcast.agentId,
      correlationId: broadcast.correlationId,
      payload: { response: responseToDto(row!) },
    });
    emit({
      type: "broadcast.closed",
      actor,
      correlationId: broadcast.correlationId,
      payload: {
        broadcastId,
        status: "complete",
        responses: 1,
        durationMs: at.getTime() - broadcast.createdAt.getTime(),
        closedAt: at.toISOString(),
      },
    });
    return responseToDto(row!);
  });
  return result!;
}

/** A participant skips the open question: the agent gets no answer and carries on. */
export async function skipHumanQuestion(db: Db, roomId: string, broadcastId: string, seat: Seat) {
  await writeRoomEvents(db, roomId, async (tx, emit, at) => {
    const [broadcast] = await tx
      .select()
      .from(broadcasts)
      .where(and(eq(broadcasts.id, broadcastId), eq(broadcasts.roomId, roomId), eq(broadcasts.mode, "human")));
    if (!broadcast) throw notFound(`Question ${broadcastId}`);
    if (broadcast.status !== "open") throw conflict(`This question is no longer open (${broadcast.status}).`);
    await tx.update(broadcasts).set({ status: "skipped", closedAt: at }).where(eq(broadcasts.id, broadcastId));
    emit({
      type: "broadcast.closed",
      actor: { id: `human:${seat.id}`, name: seat.displayName },
      correlationId: broadcast.correlationId,
      payload: {
        broadcastId,
        status: "skipped",
        responses: 0,
        durationMs: at.getTime() - broadcast.createdAt.getTime(),
        closedAt: at.toISOString(),
      },
    });
  });
}
