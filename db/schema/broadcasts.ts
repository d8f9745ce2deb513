import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { rooms } from "./rooms";

export type BroadcastMode = "agents" | "human";
/**
 * `pending`: shadows are answering (agents mode). `waiting_turn`: queued behind another
 * human question. `open`: shown to the people in the room. The rest are outcomes;
 * `cancelled` means the asking run ended before it collected the answers; `reused` that
 * a person's earlier answer to the same question was given instead of asking again.
 * `deferred` is only found on questions from before reuse was by question.
 */
export type BroadcastStatus =
  | "pending"
  | "waiting_turn"
  | "open"
  | "complete"
  | "timeout"
  | "deferred"
  | "reused"
  | "skipped"
  | "cancelled";

/** The earlier answer a question got instead of being put to the room: whose, to what, and when. */
export interface ReusedAnswer {
  /** The question that was answered. */
  broadcastId: string;
  question: string;
  askedBy: string;
  answeredBy: string;
  answer: string;
  answeredAt: string;
}

/** An ask_others call: a question from one agent to the others or to the people in the room. */
export const broadcasts = pgTable(
  "broadcasts",
  {
    id: text("id").primaryKey(),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    runId: text("run_id"),
    agentId: text("agent_id").notNull(),
    agentName: text("agent_name").notNull(),
    mode: text("mode").$type<BroadcastMode>().notNull(),
    question: text("question").notNull(),
    targetAgentIds: jsonb("target_agent_ids").$type<string[]>().notNull().default([]),
    options: jsonb("options").$type<string[]>().notNull().default([]),
    status: text("status").$type<BroadcastStatus>().notNull(),
    correlationId: text("correlation_id").notNull(),
    /** When the asker stops waiting: asked plus the room's timeout, the wait for a turn included. */
    deadlineAt: timestamp("deadline_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    openedAt: timestamp("opened_at", { withTimezone: true }),
    closedAt: timestamp("closed_at", { withTimezone: true }),
    /** What the question asks, reduced so that the same question has the same key (lib/broadcast/same-question.ts). */
    questionKey: text("question_key"),
    /** Set when a person's earlier answer to the same question was given instead of asking the room. */
    reusedAnswer: jsonb("reused_answer").$type<ReusedAnswer>(),
    /** Set on a question a person put to the room again after it got an earlier answer: that question's id. */
    askedAgainOf: text("asked_again_of"),
  },
  (table) => [
    index("broadcasts_room_idx").on(table.roomId, table.createdAt),
    index("broadcasts_agent_status_idx").on(table.agentId, table.status),
    // The database, not a process-local lock, keeps one human question open per room.
    uniqueIndex("broadcasts_one_open_human_idx").on(table.roomId).where(sql`${table.mode} = 'human' and ${table.status} = 'open'`),
    // Few questions are active at once: a finishing run and the periodic sweep for overdue
    // questions look only at these.
    index("broadcasts_active_run_idx").on(table.runId).where(sql`${table.status} in ('pending', 'waiting_turn', 'open')`),
    // Earlier answers to the same question, found by key when a question is asked or its turn comes.
    index("broadcasts_answered_key_idx")
      .on(table.roomId, table.questionKey)
      .where(sql`${table.mode} = 'human' and ${table.status} = 'complete'`),
  ],
);

export const broadcastResponses = pgTable(
  "broadcast_responses",
  {
    id: text("id").primaryKey(),
    broadcastId: text("broadcast_id")
      .notNull()
      .references(() => broadcasts.id, { onDelete: "cascade" }),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    /** An agent id, or `human:<seat id>`. */
    responderId: text("responder_id").notNull(),
    responderName: text("responder_name").notNull(),
    isHuman: boolean("is_human").notNull(),
    content: text("content").notNull(),
    durationMs: bigint("duration_ms", { mode: "number" }).notNull().default(0),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    costUsd: doublePrecision("cost_usd").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("broadcast_responses_broadcast_idx").on(table.broadcastId)],
);

/**
 * Notes for an agent to read at its next step or run: "while you were working, X asked …
 * your shadow answered …".
 */
export const agentNotes = pgTable(
  "agent_notes",
  {
    id: text("id").primaryKey(),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull(),
    /** `note`: for the agent's awareness; `command`: a participant's message; `help`: the answer to its help request. */
    kind: text("kind").$type<AgentNoteKind>().notNull().default("note"),
    /** Orders notes that share a timestamp: delivered in the order they were left. */
    ordinal: bigserial("ordinal", { mode: "number" }).notNull(),
    text: text("text").notNull(),
    broadcastId: text("broadcast_id"),
    /** Who left a command: the seat (`human:<seatId>`) and its display name. */
    senderId: text("sender_id"),
    senderName: text("sender_name"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
    deliveredToRunId: text("delivered_to_run_id"),
    /** The step of the run whose model call first showed it. */
    deliveredAtStep: integer("delivered_at_step"),
    /** Withdrawn by its sender before it was delivered. */
    cancelledAt: timestamp("cancelled_at", { withTimezone: true }),
  },
  (table) => [
    index("agent_notes_pending_idx").on(table.agentId, table.deliveredAt),
    // Commands a seat sent lately, for its rate limit.
    index("agent_notes_sender_idx").on(table.senderId, table.createdAt),
    // A run taken over by another worker looks up the notes its earlier attempts were given.
    index("agent_notes_run_idx").on(table.deliveredToRunId),
  ],
);

export type Broadcast = typeof broadcasts.$inferSelect;
export type BroadcastResponse = typeof broadcastResponses.$inferSelect;
export type AgentNote = typeof agentNotes.$inferSelect;
export type AgentNoteKind = "note" | "command" | "help";
