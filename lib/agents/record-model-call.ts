import { eq, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { runModelCalls, runs } from "@/db/schema";

export interface ModelCallUsage {
  /** The attempt that made the call, and the call's number within it. */
  attempt: number;
  call: number;
  step: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/**
 * Records a model call of a run that returned usage and adds it to the run's totals, in one
 * write. Not fenced by the lease: a worker that lost the run has still spent what its calls
 * cost. Its calls are keyed by its own attempt, and the totals only ever grow by a call's own
 * figures, so it cannot change what the attempt that took over records.
 */
export async function recordModelCall(db: Db, runId: string, usage: ModelCallUsage): Promise<void> {
  await db.transaction(async (tx) => {
    // Only the run's row is locked, and first: this write cannot deadlock with the room writes,
    // which lock the room and then the run.
    await tx
      .update(runs)
      .set({
        inputTokens: sql`${runs.inputTokens} + ${usage.inputTokens}`,
        outputTokens: sql`${runs.outputTokens} + ${usage.outputTokens}`,
        costUsd: sql`${runs.costUsd} + ${usage.costUsd}`,
      })
      .where(eq(runs.id, runId));
    await tx.insert(runModelCalls).values({ runId, ...usage });
  });
}
