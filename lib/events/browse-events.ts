import { and, asc, desc, eq, gt, lt } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { events } from "@/db/schema";
import { type StoredEvent, type StoredEventType, storedEventTypes } from "@/lib/protocol";
import { eventFromRow } from "./event-row";

const filters = {
  /** One type from the catalogue (`run.step`, `node.created`, …). */
  type: z
    .string()
    .refine(
      (type): type is StoredEventType => (storedEventTypes as string[]).includes(type),
      "type must be one of the event types (run.step, node.created, …)",
    )
    .optional(),
  /** Who sent it: an agent's id, `human:<seat id>`, `admin`, `scheduler`, `system`. */
  agent: z.string().min(1).max(200).optional(),
  correlation_id: z.string().min(1).max(200).optional(),
};

export const eventLogQuerySchema = z.strictObject({
  ...filters,
  /** Events before this sequence number: the previous page's `nextBefore`. */
  before: z.coerce.number().int().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type EventLogQuery = z.infer<typeof eventLogQuerySchema>;

export const eventExportQuerySchema = z.strictObject(filters);
export type EventExportQuery = z.infer<typeof eventExportQuerySchema>;

export interface EventLogPage {
  events: StoredEvent[];
  /** Give it as `before` for the next (older) page; null on the last one. */
  nextBefore: number | null;
}

function matching(roomId: string, query: EventExportQuery) {
  return [
    eq(events.roomId, roomId),
    query.type ? eq(events.type, query.type) : undefined,
    query.agent ? eq(events.agent, query.agent) : undefined,
    query.correlation_id ? eq(events.correlationId, query.correlation_id) : undefined,
  ];
}

/** A room's event log, newest first, filtered by type, sender and correlation id, a page at a time by sequence number. */
export async function browseEvents(db: Db, roomId: string, query: EventLogQuery): Promise<EventLogPage> {
  const rows = await db
    .select()
    .from(events)
    .where(and(...matching(roomId, query), query.before ? lt(events.seq, query.before) : undefined))
    .orderBy(desc(events.seq))
    .limit(query.limit + 1);
  const shown = rows.slice(0, query.limit).map(eventFromRow);
  return { events: shown, nextBefore: rows.length > query.limit ? shown.at(-1)!.seq : null };
}

/**
 * A room's events matching the filters as JSON Lines, oldest first, read a page at a time as the
 * reader takes them: memory stays bounded however long the log is.
 */
export function exportEvents(db: Db, roomId: string, query: EventExportQuery, pageSize = 500): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const rows = await db
          .select()
          .from(events)
          .where(and(...matching(roomId, query), gt(events.seq, after)))
          .orderBy(asc(events.seq))
          .limit(pageSize);
        if (rows.length > 0) {
          after = rows.at(-1)!.seq;
          controller.enqueue(encoder.encode(rows.map((row) => `${JSON.stringify(eventFromRow(row))}\n`).join("")));
        }
        if (rows.length < pageSize) controller.close();
      },
    },
    { highWaterMark: 1 },
  );
}
