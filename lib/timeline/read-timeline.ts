import { and, desc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { events, rooms } from "@/db/schema";
import { notFound } from "@/lib/errors";
import { MARKED_TYPES, type TimelineMark, markOf } from "./marks";

/** The most marks a timeline lists: the newest, when a room has more (the page draws them by the pixel anyway). */
const TIMELINE_MARKS = 20_000;

export interface TimelineDto {
  lastSeq: number;
  marks: TimelineMark[];
  /** The room this one continues, and after which of its events; null when it is no fork. */
  origin: { roomId: string | null; title: string; seq: number } | null;
  /** Rooms continued from this one, newest first. */
  forks: { id: string; title: string; seq: number; createdAt: string }[];
  /** Set when the room is a read-only replay of a shared file: the room the file came from. */
  replay: { title: string; roomId: string; events: number; exportedAt: string; digest: string } | null;
}

/** What the timeline under a room's canvas shows before anyone scrubs: its marks, its origin and forks. */
export async function readTimeline(db: DbOrTx, roomId: string): Promise<TimelineDto> {
  const [room] = await db.select().from(rooms).where(eq(rooms.id, roomId));
  if (!room) throw notFound("Room");
  const [markRows, forkRows, created] = await Promise.all([
    db
      .select({ seq: events.seq, type: events.type, agent: events.agent, agentName: events.agentName, createdAt: events.createdAt })
      .from(events)
      .where(and(eq(events.roomId, roomId), inArray(events.type, MARKED_TYPES)))
      .orderBy(desc(events.seq))
      .limit(TIMELINE_MARKS),
    db
      .select({ id: rooms.id, title: rooms.title, seq: rooms.forkedFromSeq, createdAt: rooms.createdAt })
      .from(rooms)
      .where(eq(rooms.forkedFromRoomId, roomId))
      .orderBy(desc(rooms.createdAt))
      .limit(100),
    db
      .select({ payload: events.payload })
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.seq, 1))),
  ]);
  const marks = markRows
    .reverse()
    .map((row) =>
      markOf({ seq: row.seq, type: row.type, agent: row.agent, agent_name: row.agentName, timestamp: row.createdAt.toISOString() }),
    )
    .filter((mark): mark is TimelineMark => mark !== null);
  const forkedFrom = (created[0]?.payload as { forkedFrom?: { roomId: string; title: string; seq: number } } | undefined)?.forkedFrom;
  return {
    lastSeq: room.lastSeq,
    marks,
    origin: forkedFrom
      ? { roomId: room.forkedFromRoomId === forkedFrom.roomId ? forkedFrom.roomId : null, title: forkedFrom.title, seq: forkedFrom.seq }
      : null,
    forks: forkRows.map((fork) => ({ id: fork.id, title: fork.title, seq: fork.seq ?? 0, createdAt: fork.createdAt.toISOString() })),
    replay: room.replayOf
      ? {
          title: room.replayOf.title,
          roomId: room.replayOf.roomId,
          events: room.replayOf.events,
          exportedAt: room.replayOf.exportedAt,
          digest: room.replayOf.digest,
        }
      : null,
  };
}
