import { and, eq } from "drizzle-orm";
import type { Db } from "@/db";
import { agents, runs } from "@/db/schema";
import { badRequest, notFound } from "@/lib/errors";
import type { Actor } from "@/lib/events/write-room-events";
import { finishRun } from "./finish-run";

/**
 * Cancels a run: a queued run is cancelled at once; a running one is flagged and its
 * worker stops at its next heartbeat or step.
 */
export async function cancelRun(db: Db, roomId: string, runId: string, by: Actor): Promise<"cancelled" | "stopping"> {
  const [run] = await db.select().from(runs).where(and(eq(runs.id, runId), eq(runs.roomId, roomId)));
  if (!run) throw notFound(`Run ${runId}`);
  if (run.status !== "queued" && run.status !== "running") {
    throw badRequest(`Run ${runId} has already ${run.status === "succeeded" ? "finished" : run.status}.`);
  }
  if (run.status === "queued") {
    const [agent] = await db.select().from(agents).where(eq(agents.id, run.agentId));
    const cancelled = await finishRun(
      db,
      run,
      { id: run.agentId, name: agent?.name ?? "Agent" },
      {
        status: "cancelled",
        steps: 0,
        error: { errorType: "cancelled", errorMessage: `Cancelled by ${by.name}.`, retryPossible: false },
        durationMs: 0,
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
      },
      null,
    );
    if (cancelled) return "cancelled";
  }
  await db.update(runs).set({ cancelRequested: true }).where(and(eq(runs.id, runId), eq(runs.status, "running")));
  return "stopping";
}
