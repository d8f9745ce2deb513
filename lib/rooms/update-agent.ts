import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { type Agent, agents } from "@/db/schema";
import { adminActionInsert } from "@/lib/admin/admin-actions";
import { type Env, getEnv } from "@/lib/env";
import { notFound } from "@/lib/errors";
import { ADMIN_ACTOR, type Actor, eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import { modelUnavailableReason, parseModelSpec } from "@/lib/models/registry";
import { type AgentDto, LIMITS } from "@/lib/protocol";
import { agentToDto } from "./dto";

export const updateAgentInputSchema = z
  .strictObject({
    model: z
      .string()
      .trim()
      .min(1, "The model cannot be empty")
      .max(200)
      .superRefine((spec, context) => {
        const parsed = parseModelSpec(spec);
        if ("error" in parsed) context.addIssue({ code: "custom", message: parsed.error });
      })
      .optional(),
    systemPrompt: z.string().max(LIMITS.systemPrompt, `System prompts are limited to ${LIMITS.systemPrompt} characters`).optional(),
  })
  .refine((input) => input.model !== undefined || input.systemPrompt !== undefined, "Nothing to change: give model or systemPrompt");
export type UpdateAgentInput = z.infer<typeof updateAgentInputSchema>;

/**
 * An agent as the room and the dashboard show it: with why its model cannot run here, if it
 * cannot. A list passes the environment read once (`getEnv` validates it on every call).
 */
export function agentWithAvailability(agent: Agent, env: Env = getEnv()): AgentDto {
  return { ...agentToDto(agent), unavailableReason: modelUnavailableReason(agent.model, env, agent.modelOptions) };
}

/**
 * Changes an agent's model and/or system prompt (admins). Runs already under way keep what they
 * started with; the agent's next run uses the new ones. A model whose provider is not configured
 * is accepted — the agent then says why it cannot run — so keys can be set afterwards.
 */
export async function updateAgent(
  db: Db,
  roomId: string,
  agentId: string,
  input: UpdateAgentInput,
  actor: Actor = ADMIN_ACTOR,
): Promise<AgentDto> {
  const { events } = await writeRoomEvents(db, roomId, async (tx, emit, at, defer) => {
    const [agent] = await tx
      .select()
      .from(agents)
      .where(and(eq(agents.id, agentId), eq(agents.roomId, roomId)));
    if (!agent) throw notFound(`Agent ${agentId}`);
    const changed = [
      ...(input.model !== undefined && input.model !== agent.model ? (["model"] as const) : []),
      ...(input.systemPrompt !== undefined && input.systemPrompt !== agent.systemPrompt ? (["systemPrompt"] as const) : []),
    ];
    if (changed.length === 0) return;
    const [updated] = await tx
      .update(agents)
      .set({
        ...(changed.includes("model") ? { model: input.model } : {}),
        ...(changed.includes("systemPrompt") ? { systemPrompt: input.systemPrompt } : {}),
      })
      .where(eq(agents.id, agentId))
      .returning();
    emit({
      type: "agent.updated",
      actor,
      targetAgent: agentId,
      payload: { agent: agentWithAvailability(updated!), changed, previousModel: agent.model },
    });
    const what = [
      ...(changed.includes("model") ? [`switched ${agent.name} from ${agent.model} to ${updated!.model}`] : []),
      ...(changed.includes("systemPrompt") ? [`changed ${agent.name}'s system prompt`] : []),
    ];
    defer(
      adminActionInsert(
        tx,
        {
          action: "agent.updated",
          roomId,
          summary: what.join("; "),
          details: {
            agentId,
            ...(changed.includes("model") ? { model: { from: agent.model, to: updated!.model } } : {}),
            ...(changed.includes("systemPrompt") ? { systemPrompt: { from: agent.systemPrompt, to: updated!.systemPrompt } } : {}),
          },
        },
        at,
        actor,
      ),
    );
  });
  if (events.length > 0) return eventPayload(events, "agent.updated").agent;
  const [agent] = await db
    .select()
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.roomId, roomId)));
  return agentWithAvailability(agent!);
}
