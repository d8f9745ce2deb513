import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Database } from "@/db";
import { type Agent, broadcastResponses, broadcasts } from "@/db/schema";
import { responseToDto } from "@/lib/broadcast/broadcast-dto";
import { badRequest } from "@/lib/errors";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import type { RoomBus } from "@/lib/realtime/bus";

/** How often the wait looks again, should a notification be missed (a listener that reconnected). */
const RECHECK_MS = 1000;

/**
 * Waits for an outside agent's answer to a question it was asked: its own client answers
 * (`answer_question`), Parley runs no shadow for it. Null when the asker stops waiting first
 * (the question's deadline, or the asker gave up).
 */
export async function awaitOutsideAnswer(
  deps: { database: Database; bus: RoomBus },
  broadcastId: string,
  responder: Pick<Agent, "id" | "roomId">,
  signal: AbortSignal,
): Promise<string | null> {
  const answered = async () => {
    const [row] = await deps.database.db
      .select({ content: broadcastResponses.content })
      .from(broadcastResponses)
      .where(and(eq(broadcastResponses.broadcastId, broadcastId), eq(broadcastResponses.responderId, responder.id)));
    return row?.content ?? null;
  };
  while (!signal.aborted) {
    const content = await answered();
    if (content !== null) return content;
    await new Promise<void>((resolve) => {
      const stop = () => {
        clearTimeout(timer);
        unsubscribe();
        signal.removeEventListener("abort", stop);
        resolve();
      };
      const timer = setTimeout(stop, RECHECK_MS);
      const unsubscribe = deps.bus.subscribe(responder.roomId, (delivery) => {
        if (
          delivery.kind === "resync" ||
          (delivery.event.type === "broadcast.response" && delivery.event.payload.response.responderId === responder.id)
        )
          stop();
      });
      signal.addEventListener("abort", stop);
    });
  }
  return null;
}

/**
 * An outside agent answers a question a teammate asked it (agents mode): stored as a shadow's
 * answer would be, while the question waits, once. A question for people, one not addressed to
 * it, one answered already or one that has ended is refused with the reason.
 */
export async function answerAsOutsideAgent(
  database: Database,
  agent: Agent,
  input: { questionId: string; answer: string },
  options: { idempotencyKey?: string } = {},
) {
  const { result } = await writeRoomEvents(
    database.db,
    agent.roomId,
    async (tx, emit, at) => {
      const [question] = await tx
        .select()
        .from(broadcasts)
        .where(and(eq(broadcasts.id, input.questionId), eq(broadcasts.roomId, agent.roomId)))
        .for("update");
      if (!question) throw badRequest(`There is no question ${input.questionId} in this room; read_messages lists those you were asked.`);
      if (question.mode !== "agents") throw badRequest("That question is for the people in the room; only they answer it.");
      if (!question.targetAgentIds.includes(agent.id)) throw badRequest(`${question.agentName} did not ask you that question.`);
      if (question.status !== "pending") throw badRequest(`That question has ended (${question.status}); the answer would reach nobody.`);
      const [earlier] = await tx
        .select({ id: broadcastResponses.id })
        .from(broadcastResponses)
        .where(and(eq(broadcastResponses.broadcastId, question.id), eq(broadcastResponses.responderId, agent.id)));
      if (earlier) throw badRequest("You have answered that question already.");
      const [row] = await tx
        .insert(broadcastResponses)
        .values({
          id: randomUUID(),
          broadcastId: question.id,
          roomId: agent.roomId,
          responderId: agent.id,
          responderName: agent.name,
          isHuman: false,
          content: input.answer,
          durationMs: at.getTime() - question.createdAt.getTime(),
          createdAt: at,
        })
        .returning();
      emit({
        type: "broadcast.response",
        actor: { id: agent.id, name: agent.name },
        targetAgent: question.agentId,
        correlationId: question.correlationId,
        payload: { response: responseToDto(row!) },
      });
      return { question_id: question.id, answered: true };
    },
    {
      idempotencyKey: options.idempotencyKey,
      change: { type: "broadcast.response", request: { by: agent.id, ...input } },
    },
  );
  return result ?? { question_id: input.questionId, answered: true };
}
