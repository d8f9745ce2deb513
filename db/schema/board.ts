import { index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { rooms } from "./rooms";

export type BoardEntryKind = "theme" | "intention" | "contribution" | "request" | "reaction" | "finding";
/** `failed`: every run started for the request failed, so it is no longer served. */
export type RequestStatus = "open" | "queued" | "in_progress" | "answered" | "cancelled" | "failed";

/**
 * The shared context board: what agents tell each other about their work. Entries expire
 * (one hour by default) and expired ones are pruned whenever the board is read; findings
 * never expire (`expiresAt` null): they live as long as the room.
 */
export const boardEntries = pgTable(
  "board_entries",
  {
    id: text("id").primaryKey(),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    runId: text("run_id"),
    agentId: text("agent_id"),
    agentName: text("agent_name").notNull(),
    kind: text("kind").$type<BoardEntryKind>().notNull(),
    content: jsonb("content").$type<Record<string, unknown>>().notNull(),
    /** For requests: the persona asked to act. */
    targetPersona: text("target_persona"),
    /** For requests: where they stand; others leave it null. */
    requestStatus: text("request_status").$type<RequestStatus>(),
    /** For reactions: the entry they answer. */
    answersEntryId: text("answers_entry_id"),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index("board_room_idx").on(table.roomId, table.createdAt),
    index("board_room_kind_idx").on(table.roomId, table.kind),
    index("board_requests_idx").on(table.roomId, table.targetPersona, table.requestStatus),
  ],
);

export type BoardEntry = typeof boardEntries.$inferSelect;
