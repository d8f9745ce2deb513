import { randomUUID } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { agents, brainstorms, rooms } from "@/db/schema";
import { refuseUnrunnableTeam } from "@/lib/agents/start-agent-run";
import { badRequest, conflict, notFound } from "@/lib/errors";
import { type Actor, type WriteRequestOptions, eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import { refuseOverBudget } from "@/lib/limits/refuse-over-budget";
import { BRAINSTORM_STAGES, STAGE_KEYS, type StageKey, type StageStateDto, stageDefinition } from "@/lib/protocol/brainstorm";
import { createCorrelationId } from "@/lib/protocol/correlation-id";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { type BrainstormStep, currentDto, emptyStage, enterStage } from "./advance-brainstorm";
import { laneTopFor } from "./lanes";

const PROBLEM_MAX = 4000;

export const startBrainstormSchema = z.strictObject({
  problem: z
    .string()
    .trim()
    .min(1, "Describe the problem to brainstorm")
    .max(PROBLEM_MAX, `The problem is limited to ${PROBLEM_MAX} characters`),
});

/** Every persona the process needs, in stage order. */
const BRAINSTORM_PERSONAS = BRAINSTORM_STAGES.flatMap((stage) => stage.personas);

/**
 * Starts a brainstorm of `problem` in a room that has the brainstorm's personas: the framing
 * stage's first run is queued, and everything that follows shares one workflow. One brainstorm
 * at a time per room. Refused up front (429), as a run a person starts is, while today's budgets
 * have no room for that first run; with `refuseUnrunnable`, (409) while the model of one of its
 * personas cannot run here.
 */
export async function startBrainstorm(
  db: Db,
  roomId: string,
  problem: string,
  actor: Actor,
  { refuseUnrunnable, ...options }: WriteRequestOptions & { refuseUnrunnable?: boolean } = {},
) {
  const parsed = startBrainstormSchema.safeParse({ problem });
  if (!parsed.success) throw badRequest(parsed.error.issues[0]!.message);
  const text = parsed.data.problem;
  return refuseOverBudget(db, roomId, actor, async (checkBudget) => {
    const { events } = await writeRoomEvents(
      db,
      roomId,
      async (tx, emit, at) => {
        const [room] = await tx.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, roomId));
        if (!room) throw notFound("Room");
        const team = await tx.select().from(agents).where(eq(agents.roomId, roomId));
        const missing = BRAINSTORM_PERSONAS.filter((persona) => !team.some((member) => member.persona === persona));
        if (missing.length) throw badRequest(`A brainstorm needs all its personas; this room has no ${missing.join(", ")}.`);
        if (refuseUnrunnable) refuseUnrunnableTeam(team.filter((member) => BRAINSTORM_PERSONAS.includes(member.persona)));
        const [running] = await tx
          .select({ id: brainstorms.id })
          .from(brainstorms)
          .where(and(eq(brainstorms.roomId, roomId), inArray(brainstorms.status, ["running", "awaiting_gate"])))
          .limit(1);
        if (running) throw conflict("A brainstorm is under way in this room; start the next one when it has finished.");
        // Judged by the run it starts with, as a run a person starts is.
        const opener = team.find((member) => member.persona === stageDefinition("framing").personas[0])!;
        await checkBudget(tx, parseRoomSettings(room.settings), opener, at);
        const stages = Object.fromEntries(STAGE_KEYS.map((key) => [key, emptyStage()])) as Record<StageKey, StageStateDto>;
        const [created] = await tx
          .insert(brainstorms)
          .values({
            id: randomUUID(),
            roomId,
            correlationId: createCorrelationId({ scope: `brainstorm-${roomId.slice(0, 8)}`, subject: text, now: at }),
            problem: text,
            status: "running",
            stages,
            laneTop: await laneTopFor(tx, roomId),
            createdAt: at,
          })
          .returning();
        const step: BrainstormStep = { tx, emit, at, team };
        emit({
          type: "brainstorm.started",
          actor,
          correlationId: created!.correlationId,
          payload: { brainstorm: await currentDto(step, created!) },
        });
        await enterStage(step, created!, "framing", null);
      },
      options.idempotencyKey
        ? {
            ...options,
            idempotencyKey: options.idempotencyKey,
            change: { type: "brainstorm.started", request: { by: actor.id, problem: text } },
          }
        : { ...options, idempotencyKey: undefined },
    );
    return eventPayload(events, "brainstorm.started").brainstorm;
  });
}
