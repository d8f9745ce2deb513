import { doublePrecision, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import type { GateDecisionDto, StageKey, StageStateDto } from "@/lib/protocol/brainstorm";
import { rooms } from "./rooms";

export type BrainstormStatus = "running" | "awaiting_gate" | "complete" | "cancelled";

/**
 * A brainstorm: one problem taken through nine stages and the participants' gate. Its state
 * lives here, so a restart or another instance carries on at the same stage; what each agent
 * submitted lives in `brainstorm_artifacts`. One workflow (correlation id).
 */
export const brainstorms = pgTable(
  "brainstorms",
  {
    id: text("id").primaryKey(),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    correlationId: text("correlation_id").notNull(),
    problem: text("problem").notNull(),
    status: text("status").$type<BrainstormStatus>().notNull(),
    stages: jsonb("stages").$type<Record<StageKey, StageStateDto>>().notNull(),
    /** Divergent thinking was entered again because convergent thinking found fewer than 3 candidates. */
    returnedToDivergent: integer("returned_to_divergent").notNull().default(0),
    gateRound: integer("gate_round").notNull().default(0),
    gateOpenedAt: timestamp("gate_opened_at", { withTimezone: true }),
    decisions: jsonb("decisions").$type<GateDecisionDto[]>().notNull().default([]),
    /** A redirect's comment, for the Strategist's next pass. */
    redirect: text("redirect"),
    /** The candidate a "deepen" sent back to fact checking. */
    deepenCandidateId: text("deepen_candidate_id"),
    chosenCandidateId: text("chosen_candidate_id"),
    /** Where this brainstorm's lanes start on the canvas: below whatever the room held when it began. */
    laneTop: doublePrecision("lane_top").notNull().default(0),
    deliverable: text("deliverable"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (table) => [index("brainstorms_room_idx").on(table.roomId, table.createdAt)],
);

export type Brainstorm = typeof brainstorms.$inferSelect;

/**
 * What one agent submitted in one stage (ideas, precedents, candidates, checks, verdicts,
 * scores, the proposal, the deliverable), as its tool validated it. `pass` is the stage's pass
 * it belongs to, so a stage entered again builds on, or replaces, what came before.
 */
export const brainstormArtifacts = pgTable(
  "brainstorm_artifacts",
  {
    id: text("id").primaryKey(),
    brainstormId: text("brainstorm_id")
      .notNull()
      .references(() => brainstorms.id, { onDelete: "cascade" }),
    roomId: text("room_id")
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    stage: text("stage").$type<StageKey>().notNull(),
    pass: integer("pass").notNull(),
    agentId: text("agent_id").notNull(),
    agentName: text("agent_name").notNull(),
    runId: text("run_id").notNull(),
    /** The items submitted, each with the id Parley gave it (`WI-3`, `C2`, …) where it has one. */
    content: jsonb("content").$type<Record<string, unknown>>().notNull(),
    /** The canvas nodes made from it. */
    nodeIds: jsonb("node_ids").$type<string[]>().notNull().default([]),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("brainstorm_artifacts_stage_idx").on(table.brainstormId, table.stage, table.createdAt)],
);

export type BrainstormArtifact = typeof brainstormArtifacts.$inferSelect;
