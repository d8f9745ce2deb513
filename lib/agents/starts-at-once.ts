import { type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { rowsOf } from "@/db/rows";
import { runs } from "@/db/schema";
import { claimable, freeSlots } from "./claim-run";

/** A run already queued, asked about instead of one about to be queued. */
export interface QueuedRunRef {
  id: string;
  createdAt: Date;
}

/**
 * Whether a run of `agentId` would start at once rather than wait: the agent has no other run
 * running nor queued ahead of it (it runs one at a time), and the room still has a slot under its
 * `max_concurrent_runs` once the runs ahead in its queue have taken theirs (the oldest claimable
 * run of each agent goes first, as `claimNextRun` takes them). Asked before a run is queued, every
 * run in the room is ahead of it; asked about a run already queued (`queued`), those queued before it.
 *
 * It answers for this moment: a run that ends or is queued meanwhile can change it.
 */
export async function startsAtOnce(tx: DbOrTx, roomId: string, agentId: string, queued?: QueuedRunRef): Promise<boolean> {
  const isAhead: SQL = queued
    ? sql`${runs.id} <> ${queued.id} and ${runs.createdAt} < ${queued.createdAt.toISOString()}::timestamptz`
    : sql`true`;
  const [row] = rowsOf<{ busy: boolean; free: number | string; ahead: number | string }>(
    await tx.execute(sql`
      select
        exists (
          select 1 from ${runs} where ${runs.agentId} = ${agentId}
          and (${runs.status} = 'running' or (${runs.status} = 'queued' and ${isAhead}))
        ) as busy,
        ${freeSlots(sql`${roomId}`)} as free,
        (select count(distinct ${runs.agentId}) from ${runs} where ${runs.roomId} = ${roomId} and ${claimable()} and ${isAhead}) as ahead`),
  );
  return !!row && !row.busy && Number(row.free) > Number(row.ahead);
}
