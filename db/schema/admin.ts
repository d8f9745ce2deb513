import { bigint, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * What the instance's models spent, hour by hour, per agent and model. Added to by every model
 * call that returns usage — agents' runs and their shadows' answers — in the statement that
 * records it; a row is only ever written by its own agent's calls, so writes in different rooms
 * never wait for each other here. It has no link to rooms, so what was spent stays counted when
 * a room is deleted, and the dashboard's totals and charts read one row per agent-hour rather
 * than one per call.
 */
export const usageHourly = pgTable(
  "usage_hourly",
  {
    /** The start of the hour (UTC). */
    hour: timestamp("hour", { withTimezone: true }).notNull(),
    agentId: text("agent_id").notNull(),
    /** `provider:model` of the agent when the call was recorded. */
    model: text("model").notNull(),
    roomId: text("room_id").notNull(),
    /** Who the agent is across rooms (`agents.identity`): the charts' "by agent". */
    identity: text("identity").notNull(),
    /** The agent's name as last recorded, for labels. */
    agentName: text("agent_name").notNull(),
    calls: integer("calls").notNull().default(0),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    costUsd: doublePrecision("cost_usd").notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.hour, table.agentId, table.model] }),
    // One room's spending today and this week, for its page.
    index("usage_hourly_room_idx").on(table.roomId, table.hour),
  ],
);

export type UsageHour = typeof usageHourly.$inferSelect;

/**
 * The dashboard's own audit trail: every change an admin makes, with when and what. A change to
 * a room is also an event in the room's log; this record outlives the room (a deletion, a
 * prune), so the trail survives it.
 */
export const adminActions = pgTable(
  "admin_actions",
  {
    id: text("id").primaryKey(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    /** Who made the change (the admin actor's id). */
    actor: text("actor").notNull(),
    action: text("action").$type<AdminActionKind>().notNull(),
    /** The room it concerned, if one; no foreign key: the record outlives the room. */
    roomId: text("room_id"),
    roomTitle: text("room_title"),
    /** One readable line: what was done. */
    summary: text("summary").notNull(),
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
  },
  (table) => [index("admin_actions_at_idx").on(table.at, table.id), index("admin_actions_room_idx").on(table.roomId, table.at)],
);

export type AdminActionKind =
  | "room.updated"
  | "room.deleted"
  | "rooms.pruned"
  | "agent.updated"
  | "run.cancelled"
  | "run.retried"
  | "vault.cleared"
  | "brainstorm.gate_decided";

export type AdminAction = typeof adminActions.$inferSelect;
