import { and, asc, eq, gt, inArray, lte, ne, or, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { agents, events } from "@/db/schema";
import { eventFromRow } from "@/lib/events/event-row";
import { notFound } from "@/lib/errors";
import { ASKING_EVENT_TYPES, type AskCounts, type AskEdge, asksIn, tallyAsks } from "@/lib/protocol/asks";
import { findRoom } from "./list-rooms";

const PAGE_SIZE = 500;

/**
 * Who asked whom over a room's whole history, read from its event log in pages of asking
 * events only (requests among the board's entries, questions, people's messages, dialogues),
 * however long the room has run. One read-only snapshot, so `through` and the counts agree.
 */
export async function countAsks(db: Db, roomId: string): Promise<AskCounts> {
  return db.transaction(
    async (tx) => {
      const room = await findRoom(tx, roomId);
      if (!room) throw notFound("Room");
      const team = await tx.select({ id: agents.id, persona: agents.persona }).from(agents).where(eq(agents.roomId, roomId));
      let edges: AskEdge[] = [];
      for (let after = 0; ; ) {
        const rows = await tx
          .select()
          .from(events)
          .where(
            and(
              eq(events.roomId, roomId),
              gt(events.seq, after),
              lte(events.seq, room.lastSeq),
              inArray(events.type, ASKING_EVENT_TYPES),
              // Of the board's entries only requests ask anyone; the rest are most of the board.
              or(ne(events.type, "board.posted"), sql`${events.payload}->'entry'->>'kind' = 'request'`),
            ),
          )
          .orderBy(asc(events.seq))
          .limit(PAGE_SIZE);
        edges = tallyAsks(edges, rows.map(eventFromRow).flatMap(asksIn), team);
        if (rows.length < PAGE_SIZE) break;
        after = rows.at(-1)!.seq;
      }
      return { through: room.lastSeq, edges };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
