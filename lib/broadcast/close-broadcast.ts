import { and, count, eq, inArray } from "drizzle-orm";
import type { Tx } from "@/db";
import { type Broadcast, type BroadcastStatus, broadcastResponses, broadcasts } from "@/db/schema";
import type { Emit } from "@/lib/events/write-room-events";

/** Broadcasts still waiting for their answers. */
export const ACTIVE_STATUSES: BroadcastStatus[] = ["pending", "waiting_turn", "open"];

/**
 * Ends a broadcast with its outcome and announces it (`broadcast.closed`, with how many
 * answers came and the wall time). Does nothing when it had already ended.
 */
export async function closeBroadcast(
  tx: Tx,
  emit: Emit,
  broadcast: Broadcast,
  status: "complete" | "timeout" | "deferred" | "skipped",
  at: Date,
  actor: { id: string; name: string },
): Promise<boolean> {
  const closed = await tx
    .update(broadcasts)
    .set({ status, closedAt: at })
    .where(and(eq(broadcasts.id, broadcast.id), inArray(broadcasts.status, ACTIVE_STATUSES)))
    .returning({ id: broadcasts.id });
  if (closed.length === 0) return false;
  const [answers] = await tx
    .select({ value: count() })
    .from(broadcastResponses)
    .where(eq(broadcastResponses.broadcastId, broadcast.id));
  emit({
    type: "broadcast.closed",
    actor,
    correlationId: broadcast.correlationId,
    status: status === "timeout" ? "error" : "success",
    errorDetails:
      status === "timeout"
        ? { errorType: "broadcast_timeout", errorMessage: "Not every answer arrived in time.", retryPossible: true }
        : null,
    payload: {
      broadcastId: broadcast.id,
      status,
      responses: Number(answers?.value ?? 0),
      durationMs: at.getTime() - broadcast.createdAt.getTime(),
      closedAt: at.toISOString(),
    },
  });
  return true;
}

