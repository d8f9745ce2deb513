import { integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import type { AskKind } from "@/lib/protocol/asks";
import { rooms } from "./rooms";

/**
 * Who asked whom in a room, counted as it happens: the transaction that stores an asking event
 * (a request on the board, a question, a person's message, a dialogue) adds it here, so a room's
 * whole count is one index range however long its history. What counts as asking is decided by
 * `asksIn` (lib/protocol/asks.ts). A request names a persona; it is resolved to an agent when read.
 */
export const roomAsks = pgTable(
  "room_asks",
  {
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    /** An agent id, or `people`. */
    asker: text("asker").notNull(),
    /** `id`: `target` is an agent id (or `people`); `persona`: the persona a request names. */
    targetKind: text("target_kind").$type<"id" | "persona">().notNull(),
    target: text("target").notNull(),
    kind: text("kind").$type<AskKind>().notNull(),
    count: integer("count").notNull(),
  },
  (table) => [primaryKey({ columns: [table.roomId, table.asker, table.targetKind, table.target, table.kind] })],
);

export type RoomAskRow = typeof roomAsks.$inferSelect;
