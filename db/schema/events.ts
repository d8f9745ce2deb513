import { bigint, index, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { rooms } from "./rooms";

/**
 * The append-only audit trail. Every row is one protocol message; `seq` is the room's
 * gapless sequence number assigned in commit order and doubles as the SSE event id.
 */
export const events = pgTable(
  "events",
  {
    id: text("id").primaryKey(),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    seq: bigint("seq", { mode: "number" }).notNull(),
    correlationId: text("correlation_id").notNull(),
    /** The event that caused this one; null for the root of a workflow and for rows written before causes were kept. */
    causationId: text("causation_id"),
    /** A caller's W3C `traceparent`, kept with the roots its request wrote, so exported spans join the caller's trace. */
    traceParent: text("trace_parent"),
    agent: text("agent").notNull(),
    agentName: text("agent_name").notNull(),
    targetAgent: text("target_agent"),
    type: text("type").notNull(),
    status: text("status").$type<"success" | "error" | "pending">().notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    nextSteps: jsonb("next_steps").$type<string[]>().notNull().default([]),
    errorDetails: jsonb("error_details").$type<Record<string, unknown> | null>(),
    idempotencyKey: text("idempotency_key"),
    /** A hash of who asked for what under `idempotency_key`: a key reused for another request is refused. */
    idempotencyFingerprint: text("idempotency_fingerprint"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("events_room_seq_idx").on(table.roomId, table.seq),
    uniqueIndex("events_room_idempotency_idx").on(table.roomId, table.idempotencyKey),
    index("events_correlation_idx").on(table.correlationId),
    // A workflow's messages in order: one index range, however big the room.
    index("events_room_correlation_seq_idx").on(table.roomId, table.correlationId, table.seq),
    // The dashboard's event log filtered by type or by sender: a page is one index range even
    // when what it asks for is rare in a big room.
    index("events_room_type_seq_idx").on(table.roomId, table.type, table.seq),
    index("events_room_agent_seq_idx").on(table.roomId, table.agent, table.seq),
  ],
);

export type EventRow = typeof events.$inferSelect;
