import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { type Run, runs } from "@/db/schema";
import { cancelRunBroadcasts } from "@/lib/broadcast/end-orphaned-broadcasts";
import { type Actor, writeRoomEvents } from "@/lib/events/write-room-events";
import type { ErrorDetails, UsageFigures } from "@/lib/protocol";
import { settleRequest } from "./settle-request";

export interface RunOutcome extends UsageFigures {
  status: "succeeded" | "failed" | "cancelled";
  steps: number;
  error: ErrorDetails | null;
}

/**
 * Records how a run ended — totals, error, the request it answered, the questions it left
 * unanswered — and announces it (`run.finished`). Only the worker that still holds the lease may finish a running run;
 * returns false when the run was taken over meanwhile.
 */
export async function finishRun(db: Db, run: Run, agent: Actor, outcome: RunOutcome, owner: string | null): Promise<boolean> {
  const { result } = await writeRoomEvents(db, run.roomId, async (tx, emit, at) => {
    const conditions = [eq(runs.id, run.id), sql`${runs.status} in ('queued', 'running')`];
    if (owner) conditions.push(eq(runs.leaseOwner, owner));
    const updated = await tx
      .update(runs)
      .set({
        status: outcome.status,
        finishedAt: at,
        leaseOwner: null,
        leaseExpiresAt: null,
        streamingText: "",
        error: outcome.error,
      })
      .where(and(...conditions))
      .returning({ id: runs.id });
    if (updated.length === 0) return false;
    await settleRequest(tx, emit, run, outcome.status, agent);
    await cancelRunBroadcasts(tx, emit, run.id, at, agent);
    emit({
      type: "run.finished",
      actor: agent,
      correlationId: run.correlationId,
      status: outcome.status === "failed" ? "error" : "success",
      errorDetails: outcome.error,
      payload: {
        runId: run.id,
        agentId: run.agentId,
        status: outcome.status,
        steps: outcome.steps,
        error: outcome.error,
        durationMs: outcome.durationMs,
        inputTokens: outcome.inputTokens,
        outputTokens: outcome.outputTokens,
        costUsd: outcome.costUsd,
      },
    });
    return true;
  });
  return result === true;
}
