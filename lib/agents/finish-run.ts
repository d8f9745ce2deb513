import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { type Run, runs } from "@/db/schema";
import { cancelRunBroadcasts } from "@/lib/broadcast/end-orphaned-broadcasts";
import { type Actor, type CarriedChanges, writeRoomEvents } from "@/lib/events/write-room-events";
import type { ErrorDetails } from "@/lib/protocol";
import { forgetSavedSteps } from "./save-run-step";
import { settleRequest } from "./settle-request";

export interface RunOutcome {
  status: "succeeded" | "failed" | "cancelled";
  error: ErrorDetails | null;
  /** Time spent working on the run, over all its attempts. */
  durationMs: number;
}

/**
 * Records how a run ended — error, the request it answered, the questions it left
 * unanswered — and announces it (`run.finished`) with its totals as the row holds them:
 * every model call of every attempt that returned usage counts, once, whether or not its
 * step was saved, not only those of the attempt that finished it. `carry` brings the calls
 * no earlier write of the run carried, so the totals read here include them.
 * Only the worker that still holds the lease may finish a running run; returns false when
 * the run was taken over meanwhile.
 */
export async function finishRun(
  db: Db,
  run: Run,
  agent: Actor,
  outcome: RunOutcome,
  owner: string | null,
  carry?: CarriedChanges,
): Promise<boolean> {
  const { result } = await writeRoomEvents(db, run.roomId, async (tx, emit, at) => {
    const conditions = [eq(runs.id, run.id), sql`${runs.status} in ('queued', 'running')`];
    if (owner) conditions.push(eq(runs.leaseOwner, owner));
    const [finished] = await tx
      .update(runs)
      .set({
        status: outcome.status,
        finishedAt: at,
        leaseOwner: null,
        leaseExpiresAt: null,
        streamingText: "",
        opening: null,
        error: outcome.error,
      })
      .where(and(...conditions))
      .returning({
        steps: runs.steps,
        attempts: runs.attempts,
        inputTokens: runs.inputTokens,
        outputTokens: runs.outputTokens,
        costUsd: runs.costUsd,
      });
    if (!finished) return false;
    await forgetSavedSteps(tx, run.id);
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
        error: outcome.error,
        durationMs: outcome.durationMs,
        ...finished,
      },
    });
    return true;
  }, { carry });
  return result === true;
}
