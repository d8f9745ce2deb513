import { and, asc, between, eq, gt } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { events } from "@/db/schema";
import type { StoredEvent } from "@/lib/protocol";
import { eventFromRow } from "./event-row";

export const REPLAY_PAGE_SIZE = 500;

/** Events of a room with `seq > after`, oldest first, at most `limit`. */
export async function readEventsAfter(db: DbOrTx, roomId: string, after: number, limit = REPLAY_PAGE_SIZE): Promise<StoredEvent[]> {
  const rows = await db
    .select()
    .from(events)
    .where(and(eq(events.roomId, roomId), gt(events.seq, after)))
    .orderBy(asc(events.seq))
    .limit(limit);
  return rows.map(eventFromRow);
}

export async function readEventRange(db: DbOrTx, roomId: string, from: number, to: number): Promise<StoredEvent[]> {
  const rows = await db
    .select()
    .from(events)
    .where(and(eq(events.roomId, roomId), between(events.seq, from, to)))
    .orderBy(asc(events.seq));
  return rows.map(eventFromRow);
}
