import { and, asc, eq, gt, lte } from "drizzle-orm";
import type { Db } from "@/db";
import { type Room, events } from "@/db/schema";
import { eventFromRow } from "./event-row";
import { roomLogWriter } from "./room-log-file";

/**
 * A room's whole log as a room log file (see `room-log-file.ts`), streamed a page at a time as
 * the reader takes it: events 1 to the room's last when the export starts, so events written
 * meanwhile are left for the next export and memory stays bounded however long the log is.
 */
export function exportRoomLog(db: Db, room: Room, options: { pageSize?: number; now?: Date } = {}): ReadableStream<Uint8Array> {
  const pageSize = options.pageSize ?? 500;
  const encoder = new TextEncoder();
  const last = room.lastSeq;
  const writer = roomLogWriter(
    { id: room.id, title: room.title, template: room.template, createdAt: room.createdAt.toISOString() },
    last,
    options.now,
  );
  let after = 0;
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          controller.enqueue(encoder.encode(writer.header()));
          return;
        }
        const rows = await db
          .select()
          .from(events)
          .where(and(eq(events.roomId, room.id), gt(events.seq, after), lte(events.seq, last)))
          .orderBy(asc(events.seq))
          .limit(pageSize);
        if (rows.length > 0) {
          after = rows.at(-1)!.seq;
          controller.enqueue(encoder.encode(rows.map((row) => writer.event(eventFromRow(row))).join("")));
        }
        if (rows.length < pageSize || after >= last) {
          controller.enqueue(encoder.encode(writer.end()));
          controller.close();
        }
      },
    },
    { highWaterMark: 1 },
  );
}
