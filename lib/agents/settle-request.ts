import { and, count, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type RequestStatus, type Run, runs } from "@/db/schema";
import { setRequestStatus } from "@/lib/board/post-entry";
import type { Actor, Emit } from "@/lib/events/write-room-events";

/**
 * How many times a run may be started for one piece of work: a run whose worker died is
 * claimed again up to this many times, and a request whose runs failed is served again
 * until this many have failed on it.
 */
export const MAX_RUN_ATTEMPTS = 3;

/**
 * Moves on the board request a finished run was serving: answered, cancelled, or — when the
 * run failed — open again for the scheduler to serve, until `MAX_RUN_ATTEMPTS` runs have failed
 * on it and it is closed as failed.
 */
export async function settleRequest(
  tx: DbOrTx,
  emit: Emit,
  run: Run,
  outcome: "succeeded" | "failed" | "cancelled",
  actor: Actor,
): Promise<void> {
  if (!run.requestEntryId) return;
  let status: RequestStatus = outcome === "succeeded" ? "answered" : "cancelled";
  if (outcome === "failed") {
    const [failed] = await tx
      .select({ value: count() })
      .from(runs)
      .where(and(eq(runs.requestEntryId, run.requestEntryId), eq(runs.status, "failed")));
    status = Number(failed?.value ?? 0) >= MAX_RUN_ATTEMPTS ? "failed" : "open";
  }
  await setRequestStatus(tx, emit, {
    roomId: run.roomId,
    entryId: run.requestEntryId,
    status,
    runId: run.id,
    actor,
    correlationId: run.correlationId,
  });
}
