import { bigint, boolean, doublePrecision, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { rooms } from "./rooms";

/** `preparing`: the Coder has the brief and says it is ready, or asks its one question, before it writes code. */
export type BuildReviewStatus =
  | "briefing"
  | "preparing"
  | "coding"
  | "reviewing"
  | "in_dialogue"
  | "approved"
  | "not_approved"
  | "cancelled";
export type IssueSeverity = "blocker" | "major" | "minor";

export interface ReviewIssue {
  severity: IssueSeverity;
  text: string;
  nodeId?: string | null;
}

export interface ReviewVerdict {
  verdict: "approve" | "changes";
  issues: ReviewIssue[];
  openQuestions: string[];
  /** The code version it reviewed. */
  version: number;
  /** The review round it was given in. */
  round: number;
}

/**
 * A build review: the Architect's brief, the Coder's code (a new version each round) and the
 * Reviewer's verdicts, until consensus or the rounds run out. One workflow (correlation id).
 */
export const buildReviews = pgTable(
  "build_reviews",
  {
    id: text("id").primaryKey(),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    correlationId: text("correlation_id").notNull(),
    task: text("task").notNull(),
    status: text("status").$type<BuildReviewStatus>().notNull(),
    /** The review round under way, from 1. */
    round: integer("round").notNull().default(1),
    maxRounds: integer("max_rounds").notNull(),
    brief: text("brief"),
    /** The Coder asked its one question already (before it wrote code). */
    clarified: boolean("clarified").notNull().default(false),
    codeNodeId: text("code_node_id"),
    codeVersion: integer("code_version").notNull().default(0),
    language: text("language"),
    lastVerdict: jsonb("last_verdict").$type<ReviewVerdict | null>(),
    /** Why it ended as it did: the issues left, or what failed. */
    outcome: text("outcome"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (table) => [index("build_reviews_room_idx").on(table.roomId, table.createdAt)],
);

export type DialogueStatus = "open" | "resolved" | "unresolved" | "cancelled";

/**
 * Two agents talking directly: the addressee answers, the asker replies, at most `maxRounds`
 * times, until the asker is satisfied. Its messages are runs of the two agents.
 */
export const dialogues = pgTable(
  "dialogues",
  {
    id: text("id").primaryKey(),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    correlationId: text("correlation_id").notNull(),
    buildReviewId: text("build_review_id"),
    askerAgentId: text("asker_agent_id").notNull(),
    addresseeAgentId: text("addressee_agent_id").notNull(),
    /** What the asker wants to know (the question, or the concern). */
    topic: text("topic").notNull(),
    reason: text("reason").notNull(),
    status: text("status").$type<DialogueStatus>().notNull().default("open"),
    /** Rounds completed: an answer and the asker's reply. */
    rounds: integer("rounds").notNull().default(0),
    maxRounds: integer("max_rounds").notNull(),
    /** Set by the asker's structured reply in the round under way. */
    askerSatisfied: boolean("asker_satisfied"),
    remaining: text("remaining"),
    durationMs: integer("duration_ms").notNull().default(0),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
    costUsd: doublePrecision("cost_usd").notNull().default(0),
    costKnown: boolean("cost_known").notNull().default(true),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    closedAt: timestamp("closed_at", { withTimezone: true }),
  },
  (table) => [index("dialogues_room_status_idx").on(table.roomId, table.status)],
);

export type BuildReview = typeof buildReviews.$inferSelect;
export type Dialogue = typeof dialogues.$inferSelect;
