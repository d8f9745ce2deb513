import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { agents, runs } from "@/db/schema";
import { badRequest, notFound } from "@/lib/errors";
import type { Actor, Emit } from "@/lib/events/write-room-events";
import type { ErrorDetails } from "@/lib/protocol";
import { finishRun, finishRunInWrite } from "./finish-run";

/** How a run someone cancelled ends. */
function cancelledBy(by: Actor): ErrorDetails {
  return { error_type: "cancelled", error_message: `Cancelled by ${by.name}.`, retry_possible: false };
}

/** Where a running run's cancel is announced: the worker holding the run stops it at once. */
export const RUN_CANCELS_CHANNEL = "parley_run_cancels";

/**
 * Cancels a run: a queued run is cancelled at once; a running one is flagged, and the worker
 * holding it is told at once (its heartbeat finds the flag too, should the word not reach it).
 * The flag stays on the run, so a run handed back to the queue or left by a worker that died is
 * cancelled, not started again, by the next worker to claim it.
 */
export async function cancelRun(db: Db, roomId: string, runId: string, by: Actor): Promise<"cancelled" | "stopping"> {
  const [run] = await db
    .select()
    .from(runs)
    .where(and(eq(runs.id, runId), eq(runs.roomId, roomId)));
  if (!run) throw notFound(`Run ${runId}`);
  if (run.status !== "queued" && run.status !== "running") {
    throw badRequest(`Run ${runId} has already ${run.status === "succeeded" ? "finished" : run.status}.`);
  }
  const [flagged] = await db
    .update(runs)
    .set({ cancelRequested: true })
    .where(and(eq(runs.id, runId), inArray(runs.status, ["queued", "running"])))
    .returning();
  if (!flagged) throw badRequest(`Run ${runId} has already finished.`);
  if (flagged.status === "running") {
    await db.execute(sql`select pg_notify(${RUN_CANCELS_CHANNEL}, ${runId})`);
    return "stopping";
  }
  const [agent] = await db.select().from(agents).where(eq(agents.id, flagged.agentId));
  // Whether this write or a worker's claim ends the flagged run, it ends cancelled.
  await finishRun(
    db,
    flagged,
    { id: flagged.agentId, name: agent?.name ?? "Agent" },
    { status: "cancelled", error: cancelledBy(by), durationMs: 0 },
    null,
  );
  return "cancelled";
}

/**
 * Cancels a queued run as `cancelRun` does, inside a room write the caller holds (with the room
 * locked no worker claims the run meanwhile): for a write that cancels a run among changes of its
 * own; `reason` says why, where it is more than who cancelled it. Returns false when the run is no
 * longer queued.
 */
export async function cancelQueuedRun(tx: DbOrTx, emit: Emit, at: Date, runId: string, by: Actor, reason?: string): Promise<boolean> {
  const [flagged] = await tx
    .update(runs)
    .set({ cancelRequested: true })
    .where(and(eq(runs.id, runId), eq(runs.status, "queued")))
    .returning();
  if (!flagged) return false;
  const [agent] = await tx.select({ name: agents.name }).from(agents).where(eq(agents.id, flagged.agentId));
  return finishRunInWrite(
    tx,
    emit,
    at,
    flagged,
    { id: flagged.agentId, name: agent?.name ?? "Agent" },
    { status: "cancelled", error: reason ? { ...cancelledBy(by), error_message: reason } : cancelledBy(by), durationMs: 0 },
    null,
  );
}
