import { and, count, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type Broadcast, type BroadcastStatus, type ReusedAnswer, broadcastResponses, broadcasts } from "@/db/schema";
import type { Emit } from "@/lib/events/write-room-events";
import type { ErrorDetails } from "@/lib/protocol";

/** Broadcasts still waiting for their answers. */
export const ACTIVE_STATUSES: BroadcastStatus[] = ["pending", "waiting_turn", "open"];

export type BroadcastOutcome = "complete" | "timeout" | "reused" | "skipped" | "cancelled";

/** Why a broadcast ended without its answers, for the event's error details: worded for whoever reads its thread. */
function shortfall(broadcast: Broadcast, status: BroadcastOutcome): ErrorDetails | null {
  if (status === "timeout" && broadcast.mode === "human") {
    return {
      error_type: "broadcast_timeout",
      error_message: `Nobody answered in time; ${broadcast.agentName} carries on without an answer.`,
      retry_possible: true,
    };
  }
  if (status === "timeout")
    return { error_type: "broadcast_timeout", error_message: "Not every answer arrived in time.", retry_possible: true };
  if (status === "cancelled") {
    return { error_type: "asker_stopped", error_message: "The asker stopped waiting before the answers were in.", retry_possible: false };
  }
  return null;
}

/**
 * Ends a broadcast with its outcome and announces it; `closeBroadcast` is what callers use.
 * Does nothing (false) when it had already ended. A question given an earlier answer
 * (`reused`) stores which.
 */
export async function endBroadcast(
  tx: DbOrTx,
  emit: Emit,
  broadcast: Broadcast,
  status: BroadcastOutcome,
  at: Date,
  actor: { id: string; name: string },
  reusedAnswer?: ReusedAnswer,
): Promise<boolean> {
  const closed = await tx
    .update(broadcasts)
    .set({ status, closedAt: at, ...(reusedAnswer ? { reusedAnswer } : {}) })
    .where(and(eq(broadcasts.id, broadcast.id), inArray(broadcasts.status, ACTIVE_STATUSES)))
    .returning({ id: broadcasts.id });
  if (closed.length === 0) return false;
  const [answers] = await tx.select({ value: count() }).from(broadcastResponses).where(eq(broadcastResponses.broadcastId, broadcast.id));
  const missing = shortfall(broadcast, status);
  emit({
    type: "broadcast.closed",
    actor,
    correlationId: broadcast.correlationId,
    status: missing ? "error" : "success",
    errorDetails: missing,
    payload: {
      broadcastId: broadcast.id,
      status,
      responses: Number(answers?.value ?? 0) + (reusedAnswer ? 1 : 0),
      durationMs: at.getTime() - broadcast.createdAt.getTime(),
      closedAt: at.toISOString(),
      ...(reusedAnswer ? { reusedAnswer } : {}),
    },
  });
  return true;
}
