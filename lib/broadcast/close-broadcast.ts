import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type Broadcast, broadcasts } from "@/db/schema";
import type { Emit } from "@/lib/events/write-room-events";
import { type BroadcastOutcome, endBroadcast } from "./end-broadcast";

export { ACTIVE_STATUSES } from "./end-broadcast";
import { openNextQuestion } from "./next-question";

export type { BroadcastOutcome } from "./end-broadcast";

/**
 * The same condition as literal SQL, matching the partial index on active broadcasts: a
 * bound-parameter list would keep a prepared statement's plan from using that index.
 */
export const isActive = sql`${broadcasts.status} in ('pending', 'waiting_turn', 'open')`;

/**
 * Ends a broadcast with its outcome and announces it (`broadcast.closed`, with how many
 * answers came and the wall time). Does nothing when it had already ended. A question to the
 * people hands the room to the next one waiting, in the same transaction: whoever ends it, on
 * whichever instance, the next question opens with its whole timeout.
 */
export async function closeBroadcast(
  tx: DbOrTx,
  emit: Emit,
  broadcast: Broadcast,
  status: BroadcastOutcome,
  at: Date,
  actor: { id: string; name: string },
): Promise<boolean> {
  const closed = await endBroadcast(tx, emit, broadcast, status, at, actor);
  if (closed && broadcast.mode === "human") await openNextQuestion(tx, emit, broadcast.roomId, at);
  return closed;
}
