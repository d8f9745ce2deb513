import { isExternalModel } from "@/lib/external/external-model";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { type Agent, agents, rooms } from "@/db/schema";
import { refuseWhileAlone } from "./team";
import { AppError, badRequest, notFound } from "@/lib/errors";
import { type Actor, eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import { modelUnavailableReason } from "@/lib/models/registry";
import { LIMITS } from "@/lib/protocol";
import { refuseOverBudget } from "@/lib/limits/refuse-over-budget";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { findTemplate } from "@/lib/rooms/templates";
import { enqueueRun } from "./enqueue-run";
import { runToDto } from "./run-dto";

export const startRunInputSchema = z.strictObject({
  agentId: z.string().min(1).max(64),
  prompt: z.string().trim().max(LIMITS.noteText, `Prompts are limited to ${LIMITS.noteText} characters`).optional(),
});
type StartRunInput = z.infer<typeof startRunInputSchema>;

/**
 * What an agent does when started without instructions: its share of the room's task when the
 * room has one (never another subject beside it), else its template prompt.
 */
export function defaultPrompt(template: string, persona: string, task: string): string {
  const own = findTemplate(template)?.prompts.find((prompt) => prompt.persona === persona);
  if (task) return own ? `${task}\n\nYour part: ${own.part}.` : task;
  return own?.prompt ?? "Add something to the canvas that fits what is already there.";
}

/**
 * An agent whose model cannot run on this server (its provider has no key or endpoint here, its
 * model is not one Parley knows) is not started: its run would only fail once claimed, after
 * the start was answered 201. A 409 says why, and nothing is written.
 */
export function refuseUnrunnableModel(agent: Pick<Agent, "name" | "model" | "modelOptions">): void {
  const reason = modelUnavailableReason(agent.model, undefined, agent.modelOptions);
  if (reason) throw new AppError(409, "model_unavailable", `${agent.name} cannot run on this server: ${reason}`);
}

/**
 * A workflow that runs each of `members` in turn (a build review, a brainstorm, a room's team) is
 * not started while one of them cannot run here: it would stop at that member's turn. Outside
 * agents are passed over, since their own clients run them.
 */
export function refuseUnrunnableTeam(members: Pick<Agent, "name" | "model" | "modelOptions">[]): void {
  for (const member of members) if (!isExternalModel(member.model)) refuseUnrunnableModel(member);
}

/**
 * A person starts an agent: the run is queued and waits for a free slot in the room. Refused
 * (429 until midnight UTC) while the room's or the instance's budget for today is spent or the
 * run is expected to go past it, the room told so with a `limit.reached` of its own; and (409)
 * while the agent works alone in a brainstorm's divergent thinking; with `refuseUnrunnable`,
 * (409) while its model cannot run here.
 */
export async function startAgentRun(
  db: Db,
  roomId: string,
  input: StartRunInput,
  actor: Actor,
  options: { idempotencyKey?: string; refuseUnrunnable?: boolean } = {},
) {
  return refuseOverBudget(db, roomId, actor, async (checkBudget) => {
    const { events, result } = await writeRoomEvents(
      db,
      roomId,
      async (tx, emit, at) => {
        const [agent] = await tx
          .select()
          .from(agents)
          .where(and(eq(agents.id, input.agentId), eq(agents.roomId, roomId)));
        if (!agent) throw badRequest(`Agent ${input.agentId} is not in this room.`);
        if (isExternalModel(agent.model)) {
          throw badRequest(`${agent.name} is an outside agent: its own client runs it. Send it an @message instead.`);
        }
        await refuseWhileAlone(tx, roomId, agent);
        if (options.refuseUnrunnable) refuseUnrunnableModel(agent);
        const [room] = await tx.select().from(rooms).where(eq(rooms.id, roomId));
        if (!room) throw notFound("Room");
        const settings = parseRoomSettings(room.settings);
        await checkBudget(tx, settings, agent, at);
        const prompt = input.prompt || defaultPrompt(room.template, agent.persona, settings.task);
        const run = await enqueueRun(tx, emit, { roomId, agentId: agent.id, trigger: "human", requestedBy: actor, prompt, at });
        return runToDto(run);
      },
      { idempotencyKey: options.idempotencyKey, change: { type: "run.queued", subject: input.agentId, request: { by: actor.id, input } } },
    );
    return result ?? eventPayload(events, "run.queued").run;
  });
}
