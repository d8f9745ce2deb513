import { bigint, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

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
  },
  (table) => [index("rooms_last_activity_idx").on(table.lastActivityAt)],
);

export type Room = typeof rooms.$inferSelect;
export type NewRoom = typeof rooms.$inferInsert;
