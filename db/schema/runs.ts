import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { rooms } from "./rooms";

export type RunStatus = "queued" | "running" | "succeeded" | "failed" | "cancelled";
/** Why a run started: a person, the scheduler, another agent's request, a broadcast. */
export type RunTrigger = "human" | "scheduler" | "request" | "broadcast" | "dialogue";

/**
 * Agent runs are durable jobs: queued, then claimed by one worker under a lease that its
 * heartbeat extends. A run whose worker died is claimed again once the lease expires.
 */
export const runs = pgTable(
  "runs",
  {
    id: text("id").primaryKey(),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    status: text("status").$type<RunStatus>().notNull().default("queued"),
    trigger: text("trigger").$type<RunTrigger>().notNull(),
    /** Who asked: a seat, an agent, `scheduler`. */
    requestedBy: text("requested_by").notNull(),
    prompt: text("prompt").notNull(),
    parentRunId: text("parent_run_id"),
    chainDepth: integer("chain_depth").notNull().default(0),
    correlationId: text("correlation_id").notNull(),
    /** Nodes the run should look at (referenced by the request that started it). */
    selectedNodeIds: jsonb("selected_node_ids").$type<string[]>().notNull().default([]),
    /** The board request this run answers, if any. */
    requestEntryId: text("request_entry_id"),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }),
    attempts: integer("attempts").notNull().default(0),
    cancelRequested: boolean("cancel_requested").notNull().default(false),
    steps: integer("steps").notNull().default(0),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    costUsd: doublePrecision("cost_usd").notNull().default(0),
    /** The model conversation so far (messages), so shadows and audits can see it. */
    transcript: jsonb("transcript").$type<unknown[]>().notNull().default([]),
    /** What the agent is writing right now, refreshed while it streams. */
    streamingText: text("streaming_text").notNull().default(""),
    error: jsonb("error").$type<{ errorType: string; errorMessage: string; retryPossible: boolean } | null>(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (table) => [
    index("runs_queue_idx").on(table.status, table.createdAt),
    index("runs_room_status_idx").on(table.roomId, table.status),
    index("runs_agent_idx").on(table.agentId, table.createdAt),
    index("runs_correlation_idx").on(table.correlationId),
    index("runs_active_idx")
      .on(table.roomId)
      .where(sql`${table.status} in ('queued', 'running')`),
  ],
);

export type Run = typeof runs.$inferSelect;
export type NewRun = typeof runs.$inferInsert;

/** Named leases for work only one instance should do at a time (the scheduler). */
export const leases = pgTable("leases", {
  name: text("name").primaryKey(),
  owner: text("owner").notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
});
