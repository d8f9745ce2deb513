import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type Broadcast, type BroadcastStatus, broadcastResponses, broadcasts } from "@/db/schema";
import type { Emit } from "@/lib/events/write-room-events";
import type { ErrorDetails } from "@/lib/protocol";

/** Broadcasts still waiting for their answers. */
export const ACTIVE_STATUSES: BroadcastStatus[] = ["pending", "waiting_turn", "open"];

/**
 * The same condition as literal SQL, matching the partial index on active broadcasts: a
 * bound-parameter list would keep a prepared statement's plan from using that index.
 */
export const isActive = sql`${broadcasts.status} in ('pending', 'waiting_turn', 'open')`;

export type BroadcastOutcome = "complete" | "timeout" | "deferred" | "skipped" | "cancelled";

/** Why a broadcast ended without its answers, for the event's error details. */
const SHORTFALLS: Partial<Record<BroadcastOutcome, ErrorDetails>> = {
  timeout: { error_type: "broadcast_timeout", error_message: "Not every answer arrived in time.", retry_possible: true },
  cancelled: {
    error_type: "asker_stopped",
    error_message: "The asker stopped waiting before the answers were in.",
    retry_possible: false,
  },
};

/**
 * Ends a broadcast with its outcome and announces it (`broadcast.closed`, with how many
 * answers came and the wall time). Does nothing when it had already ended.
 */
export async function closeBroadcast(
  tx: DbOrTx,
  emit: Emit,
  broadcast: Broadcast,
  status: BroadcastOutcome,
  at: Date,
  actor: { id: string; name: string },
): Promise<boolean> {
  const closed = await tx
    .update(broadcasts)
    .set({ status, closedAt: at })
    .where(and(eq(broadcasts.id, broadcast.id), inArray(broadcasts.status, ACTIVE_STATUSES)))
    .returning({ id: broadcasts.id });
  if (closed.length === 0) return false;
  const [answers] = await tx.select({ value: count() }).from(broadcastResponses).where(eq(broadcastResponses.broadcastId, broadcast.id));
  const shortfall = SHORTFALLS[status] ?? null;
  emit({
    type: "broadcast.closed",
    actor,
    correlationId: broadcast.correlationId,
    status: shortfall ? "error" : "success",
    errorDetails: shortfall,
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
