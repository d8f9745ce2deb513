import { type AnyPgColumn, bigint, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const rooms = pgTable(
  "rooms",
  {
    id: text("id").primaryKey(),
    title: text("title").notNull(),
    template: text("template").notNull(),
    /** Free-form per-room settings; parsed with defaults by `lib/rooms/room-settings.ts`. */
    settings: jsonb("settings").$type<Record<string, unknown>>().notNull().default({}),
    /** The last event sequence number handed out in this room (gapless, commit order). */
    lastSeq: bigint("last_seq", { mode: "number" }).notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastActivityAt: timestamp("last_activity_at", { withTimezone: true }).notNull().defaultNow(),
    /** When the scheduler last started an agent here. */
    lastScheduledAt: timestamp("last_scheduled_at", { withTimezone: true }),
    /** The room this one was continued from (a fork), while that room exists; its first event names it for good. */
    forkedFromRoomId: text("forked_from_room_id").references((): AnyPgColumn => rooms.id, { onDelete: "set null" }),
    /** The event of the origin this room continues after. */
    forkedFromSeq: bigint("forked_from_seq", { mode: "number" }),
    /** Set for a read-only replay made from a shared log file: where the file came from. */
    replayOf: jsonb("replay_of").$type<ReplaySource>(),
    /** The seat of the person who created the room with a name: they may start its team and choose who answers its questions. */
    ownerSeatId: text("owner_seat_id"),
  },
  (table) => [index("rooms_last_activity_idx").on(table.lastActivityAt), index("rooms_forked_from_idx").on(table.forkedFromRoomId)],
);

/** What a replay room knows of the room its file was exported from. */
export interface ReplaySource {
  roomId: string;
  title: string;
  template: string;
  exportedAt: string;
  /** The file's digest over its lines, as checked on import. */
  digest: string;
  events: number;
}

export type Room = typeof rooms.$inferSelect;
export type NewRoom = typeof rooms.$inferInsert;
