import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { runs } from "@/db/schema";
import { cancelRun } from "@/lib/agents/cancel-run";
import { conflict, notFound } from "@/lib/errors";
import { type Actor, type WriteRequestOptions, eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import { FINISHED, currentDto, lockBrainstorm, saveBrainstorm } from "./advance-brainstorm";
import { followUpHeldMessages } from "./held-messages";

/**
 * Stops a brainstorm, wherever it is (a gate nobody decides would otherwise hold the room for
 * good): it ends `cancelled` in one room write, and its queued and running runs are cancelled.
 * A stage that was running stays as it was when stopped; nothing is measured or moved on.
 */
export async function cancelBrainstorm(db: Db, roomId: string, brainstormId: string, actor: Actor, options: WriteRequestOptions = {}) {
  const { events, result: working } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit, at) => {
      const brainstorm = await lockBrainstorm(tx, brainstormId);
      if (!brainstorm || brainstorm.roomId !== roomId) throw notFound("Brainstorm");
      if (FINISHED.has(brainstorm.status)) throw conflict(`The brainstorm has ended already (${brainstorm.status}).`);
      const step = { tx, emit, at, team: [] };
      const stopped = await saveBrainstorm(step, brainstorm, { status: "cancelled", finishedAt: at });
      emit({
        type: "brainstorm.completed",
        actor,
        correlationId: brainstorm.correlationId,
        status: "error",
        payload: { brainstormId, outcome: "cancelled", brainstorm: await currentDto(step, stopped) },
      });
      // Stopped while the ideators work alone: what people sent them is delivered now, not held for a release that will not come.
      if (brainstorm.stages.divergent.status === "running") await followUpHeldMessages(step, roomId);
      const active = await tx
        .select({ id: runs.id })
        .from(runs)
        .where(
          and(
            eq(runs.roomId, roomId),
            inArray(runs.status, ["queued", "running"]),
            sql`${runs.purpose}->>'brainstormId' = ${brainstormId}`,
          ),
        );
      return active.map((run) => run.id);
    },
    options.idempotencyKey
      ? {
          ...options,
          idempotencyKey: options.idempotencyKey,
          change: { type: "brainstorm.completed", request: { by: actor.id, brainstormId, cancel: true } },
        }
      : { ...options, idempotencyKey: undefined },
  );
  for (const runId of working ?? []) {
    await cancelRun(db, roomId, runId, actor).catch(() => {
      // It ended on its own meanwhile.
    });
  }
  return eventPayload(events, "brainstorm.completed");
}
