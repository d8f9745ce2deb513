import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { agents, buildReviews, rooms } from "@/db/schema";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import { refuseUnrunnableTeam } from "@/lib/agents/start-agent-run";
import { badRequest, notFound } from "@/lib/errors";
import { type Actor, type WriteRequestOptions, firstEvent, writeRoomEvents } from "@/lib/events/write-room-events";
import { refuseOverBudget } from "@/lib/limits/refuse-over-budget";
import { createCorrelationId } from "@/lib/protocol/correlation-id";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { BUILD_REVIEW_PERSONAS } from "./advance";
import { briefTask } from "./prompts";

export const startBuildReviewSchema = z.strictObject({
  task: z.string().trim().min(3, "Describe the task in a few words").max(1000),
});

/**
 * Starts a build review of `task`: the Architect's brief is queued first, and everything that
 * follows (code, verdicts, dialogues) shares one workflow. Refused up front (429), as a run a
 * person starts is, while today's budgets have no room for the Architect's brief; with
 * `refuseUnrunnable`, (409) while the Architect's, the Coder's or the Reviewer's model cannot run here.
 */
export async function startBuildReview(
  db: Db,
  roomId: string,
  task: string,
  actor: Actor,
  { refuseUnrunnable, ...options }: WriteRequestOptions & { refuseUnrunnable?: boolean } = {},
) {
  return refuseOverBudget(db, roomId, actor, async (checkBudget) => {
    const { events } = await writeRoomEvents(
      db,
      roomId,
      async (tx, emit, at) => {
        const [room] = await tx.select().from(rooms).where(eq(rooms.id, roomId));
        if (!room) throw notFound("Room");
        const team = await tx.select().from(agents).where(eq(agents.roomId, roomId));
        const missing = Object.values(BUILD_REVIEW_PERSONAS).filter((persona) => !team.some((member) => member.persona === persona));
        if (missing.length)
          throw badRequest(`A build review needs an architect, a coder and a reviewer; this room has no ${missing.join(", ")}.`);
        if (refuseUnrunnable)
          refuseUnrunnableTeam(Object.values(BUILD_REVIEW_PERSONAS).map((persona) => team.find((member) => member.persona === persona)!));
        const settings = parseRoomSettings(room.settings);
        const architect = team.find((member) => member.persona === BUILD_REVIEW_PERSONAS.architect)!;
        await checkBudget(tx, settings, architect, at);
        const id = randomUUID();
        const correlationId = createCorrelationId({ scope: `review-${roomId.slice(0, 8)}`, subject: task, now: at });
        await tx
          .insert(buildReviews)
          .values({ id, roomId, correlationId, task, status: "briefing", maxRounds: settings.max_review_rounds, createdAt: at });
        // The Architect briefs first; the Coder's word that it is ready is the review's next event.
        emit({
          type: "review.started",
          actor,
          targetAgent: architect.id,
          nextSteps: ["review.ready"],
          correlationId,
          payload: { review: { id, task, maxRounds: settings.max_review_rounds } },
        });
        await enqueueRun(tx, emit, {
          roomId,
          agentId: architect.id,
          trigger: "human",
          requestedBy: actor,
          ...briefTask(task),
          correlationId,
          purpose: { kind: "brief", buildReviewId: id },
          at,
        });
      },
      options.idempotencyKey
        ? { ...options, idempotencyKey: options.idempotencyKey, change: { type: "review.started", request: { by: actor.id, task } } }
        : { ...options, idempotencyKey: undefined },
    );
    return firstEvent(events, "review.started");
  });
}
