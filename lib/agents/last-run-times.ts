import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { runs } from "@/db/schema";

/** When each agent of the room last had a run queued (ms), by agent id: what `whoseTurn` ranks by. */
export async function lastRunTimes(tx: DbOrTx, roomId: string): Promise<Record<string, number>> {
  const rows = await tx
    .select({ agentId: runs.agentId, at: sql<string>`max(${runs.createdAt})` })
    .from(runs)
    .where(eq(runs.roomId, roomId))
    .groupBy(runs.agentId);
  return Object.fromEntries(rows.map((row) => [row.agentId, new Date(row.at).getTime()]));
}
