import { index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { rooms } from "./rooms";

/** A person who took a seat in a room. The browser holds the token; we keep its hash. */
export const seats = pgTable(
  "seats",
  {
    id: text("id").primaryKey(),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    displayName: text("display_name").notNull(),
    tokenHash: text("token_hash").notNull(),
    /** The agent this seat's messages go to when they name none; null: whichever agent stepped last. */
    focusAgentId: text("focus_agent_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex("seats_room_token_idx").on(table.roomId, table.tokenHash)],
);

/** One row per open live connection, refreshed by its app instance; stale rows are ignored. */
export const presence = pgTable(
  "presence",
  {
    connectionId: text("connection_id").primaryKey(),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    instanceId: text("instance_id").notNull(),
    seatId: text("seat_id"),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("presence_room_idx").on(table.roomId), index("presence_instance_idx").on(table.instanceId)],
);

export type Seat = typeof seats.$inferSelect;
