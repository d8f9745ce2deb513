import type { Db } from "@/db";
import type { Agent } from "@/db/schema";
import { badRequest } from "@/lib/errors";
import { type WriteRequestOptions, firstEvent, writeRoomEvents } from "@/lib/events/write-room-events";
import { addExpertise, addInsight, lockVault } from "./vault";

export interface KnowledgeUpdate {
  insight?: string;
  /** The insight is a general lesson, shown in the agent's other rooms too. */
  general?: boolean;
  area?: string;
  amount?: number;
}

/**
 * Adds to an agent's knowledge vault — an insight, expertise in an area, or both — through
 * the room's event log (`knowledge.updated`), in one transaction. Changes to one vault are
 * serialised across rooms, so none is lost.
 */
export async function updateKnowledge(
  db: Db,
  input: { roomId: string; agent: Pick<Agent, "id" | "name" | "identity">; correlationId: string; update: KnowledgeUpdate },
  options: WriteRequestOptions = {},
) {
  const { insight, general, area, amount } = input.update;
  if (insight === undefined && area === undefined) throw badRequest("Give an insight, an area, or both.");
  if (amount !== undefined && area === undefined) throw badRequest("amount raises an area's expertise: name the area too.");
  const { identity } = input.agent;
  const { events } = await writeRoomEvents(
    db,
    input.roomId,
    async (tx, emit, at) => {
      await lockVault(tx, identity);
      const saved = insight !== undefined ? await addInsight(tx, identity, input.roomId, insight, at, general === true) : null;
      const expertise = area !== undefined ? await addExpertise(tx, identity, area, amount ?? 1, at) : null;
      emit({
        type: "knowledge.updated",
        actor: { id: input.agent.id, name: input.agent.name },
        correlationId: input.correlationId,
        payload: { agentId: input.agent.id, identity, insight: saved, area: expertise?.area ?? null, level: expertise?.level ?? null },
      });
    },
    options.idempotencyKey
      ? {
          ...options,
          idempotencyKey: options.idempotencyKey,
          change: { type: "knowledge.updated", request: { by: input.agent.id, update: input.update } },
        }
      : { ...options, idempotencyKey: undefined },
  );
  return firstEvent(events, "knowledge.updated").payload;
}
