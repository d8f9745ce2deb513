import type { ModelMessage } from "ai";
import { sql } from "drizzle-orm";
import { bigint, boolean, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import type { StageKey } from "@/lib/protocol/brainstorm";
import type { StoredErrorDetails } from "@/lib/protocol/envelope";
import { agents } from "./agents";
import { rooms } from "./rooms";
import type { PromptSections, WorkflowTaskData } from "@/lib/agents/prompt-sections";

export type RunStatus = "queued" | "running" | "succeeded" | "failed" | "cancelled";
/** Why a run started: a person, the scheduler, another agent's request, a broadcast, a participant's message. */
export type RunTrigger = "human" | "scheduler" | "request" | "broadcast" | "dialogue" | "command";

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
    /** The event that queued the run (`run.queued`): its attempts' `run.started` name it as their cause. */
    causeEventId: text("cause_event_id"),
    chainDepth: integer("chain_depth").notNull().default(0),
    correlationId: text("correlation_id").notNull(),
    /** Nodes the run should look at (referenced by the request that started it). */
    selectedNodeIds: jsonb("selected_node_ids").$type<string[]>().notNull().default([]),
    /** The board request this run answers, if any. */
    requestEntryId: text("request_entry_id"),
    /** The part the run plays in a structured workflow (a build review's step, a dialogue's turn). */
    purpose: jsonb("purpose").$type<RunPurpose | null>(),
    /** What the run's workflow asks of it, as data, made with `prompt` (its words): for a model that reads it so. */
    taskData: jsonb("task_data").$type<WorkflowTaskData | null>(),
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
    /**
     * What the model was first given (system prompt and opening message), saved with the first
     * step so that a later attempt continues the same conversation instead of a new one.
     */
    opening: jsonb("opening").$type<RunOpening | null>(),
    /** What the agent is writing right now, refreshed while it streams. */
    streamingText: text("streaming_text").notNull().default(""),
    /** What went wrong, in the protocol's names; rows written before hold them in camelCase (`readErrorDetails`). */
    error: jsonb("error").$type<StoredErrorDetails | null>(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (table) => [
    index("runs_queue_idx").on(table.status, table.createdAt),
    index("runs_room_status_idx").on(table.roomId, table.status),
    index("runs_agent_idx").on(table.agentId, table.createdAt),
    index("runs_correlation_idx").on(table.correlationId),
    index("runs_room_correlation_idx").on(table.roomId, table.correlationId),
    // The dashboard's run list, newest first across rooms and in one room, read a page at a time.
    index("runs_created_idx").on(table.createdAt, table.id),
    index("runs_room_created_idx").on(table.roomId, table.createdAt, table.id),
    index("runs_active_idx").on(table.roomId).where(sql`${table.status} in ('queued', 'running')`),
  ],
);

/** What a run is for in a build review, a dialogue or a brainstorm; what follows it depends on it. */
export type RunPurpose =
  | { kind: "brief"; buildReviewId: string }
  /** The Coder, having read the brief, says it is ready or asks the Architect its one question. */
  | { kind: "ready"; buildReviewId: string }
  | { kind: "code"; buildReviewId: string }
  | { kind: "review"; buildReviewId: string }
  | { kind: "answer"; dialogueId: string }
  | { kind: "reply"; dialogueId: string }
  /** A brainstorm stage's work: its stage, the stage's pass, and whether it is the one re-run for a shortfall. */
  | { kind: "brainstorm"; brainstormId: string; stage: StageKey; pass: number; rerun: boolean };

export type Run = typeof runs.$inferSelect;
export type NewRun = typeof runs.$inferInsert;

export interface RunOpening {
  system: string;
  prompt: string;
  /** The notes for the agent shown in the opening message. */
  noteIds: string[];
  /** Estimated tokens of the context in the opening message, so notes shown later keep to the room's budget. */
  contextTokens: number;
  /** The opening message as data, for a model that reads it so (absent from runs opened before it was kept). */
  sections?: PromptSections;
}

/** A "while you were working" note as it was shown to the agent. */
export interface ShownNote {
  id: string;
  text: string;
  /** `command` and `help` notes are messages for the agent; plain notes are for its awareness. */
  kind?: "note" | "command" | "help";
}

/**
 * The steps a run has completed, each saved as it finishes: what the model answered (its
 * text and tool calls) and what the tools returned, as the model reads them back, and what
 * the step cost. A worker that takes over a run continues from here, so the tools of a
 * saved step never run twice. One row per step: a worker that lost its lease cannot save a
 * step another worker saved.
 */
export const runSteps = pgTable(
  "run_steps",
  {
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    step: integer("step").notNull(),
    /** The attempt of the run that made this step. */
    attempt: integer("attempt").notNull(),
    /** Notes for the agent that arrived while it worked, shown to it just before this step. */
    notes: jsonb("notes").$type<ShownNote[]>().notNull().default([]),
    /** The step's response messages: the assistant's turn and, if it called tools, their results. */
    messages: jsonb("messages").$type<ModelMessage[]>().notNull(),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    costUsd: doublePrecision("cost_usd").notNull().default(0),
    durationMs: integer("duration_ms").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.runId, table.step] })],
);

export type RunStep = typeof runSteps.$inferSelect;

/**
 * Every model call of a run that returned usage, recorded as soon as it returns and before
 * its step's tools run: what the provider bills, whether or not the step was then saved (its
 * worker may die or lose the run first). A run's totals are the sum of these rows. Each
 * attempt numbers its own calls, so a worker that lost the run can still record what it
 * spent without touching the calls of the attempt that took over.
 */
export const runModelCalls = pgTable(
  "run_model_calls",
  {
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    /** The attempt of the run that made the call. */
    attempt: integer("attempt").notNull(),
    /** The call's number within its attempt, from 0. */
    call: integer("call").notNull(),
    /** The step the call was for (counted over all the run's attempts). */
    step: integer("step").notNull(),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    costUsd: doublePrecision("cost_usd").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.runId, table.attempt, table.call] })],
);

export type RunModelCall = typeof runModelCalls.$inferSelect;

/** Named leases for work only one instance should do at a time (the scheduler). */
export const leases = pgTable("leases", {
  name: text("name").primaryKey(),
  owner: text("owner").notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
});

/**
 * Every running agent worker, idle or not: each refreshes its row every couple of seconds while
 * it runs and removes it when it stops, so the dashboard can list the workers that are alive
 * (not only those holding a run) and when each was last heard from.
 */
export const workers = pgTable("workers", {
  /** The worker's name: the prefix of every lease it holds (`<instance>:worker`). */
  name: text("name").primaryKey(),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
  /** Its last heartbeat, on the database's clock. */
  lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
});

export type Worker = typeof workers.$inferSelect;

/**
 * What model calls under way may spend at most, held against the budgets until each call
 * returns: the call's input as sent plus its output-token limit, at its model's prices. A call is
 * made only once its reservation fits beside everything spent and reserved (`reserveSpend`); its
 * recorded usage replaces it. A reservation counts only while the run that made it is still held
 * under the same lease, so a crashed worker's reservations lapse with its lease.
 */
export const spendReservations = pgTable(
  "spend_reservations",
  {
    id: text("id").primaryKey(),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    /** The lease owner that made it: it counts only while the run is still leased to that owner. */
    leaseOwner: text("lease_owner").notNull(),
    roomId: text("room_id").notNull(),
    correlationId: text("correlation_id").notNull(),
    tokens: bigint("tokens", { mode: "number" }).notNull(),
    costUsd: doublePrecision("cost_usd").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("spend_reservations_room_idx").on(table.roomId), index("spend_reservations_run_idx").on(table.runId)],
);
