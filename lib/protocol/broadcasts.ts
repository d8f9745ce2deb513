import { z } from "zod";

const broadcastModeSchema = z.enum(["agents", "human"]);
const broadcastStatusSchema = z.enum([
  "pending",
  "waiting_turn",
  "open",
  "complete",
  "timeout",
  "deferred",
  "reused",
  "skipped",
  "cancelled",
]);

/** A person's earlier answer to the same question, given instead of asking the room again. */
export const reusedAnswerSchema = z.object({
  broadcastId: z.string(),
  question: z.string(),
  askedBy: z.string(),
  answeredBy: z.string(),
  answer: z.string(),
  answeredAt: z.string(),
});
export type ReusedAnswerDto = z.infer<typeof reusedAnswerSchema>;

export const broadcastSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  runId: z.string().nullable(),
  mode: broadcastModeSchema,
  question: z.string(),
  targetAgentIds: z.array(z.string()),
  options: z.array(z.string()),
  status: broadcastStatusSchema,
  deadlineAt: z.string().nullable(),
  createdAt: z.string(),
  openedAt: z.string().nullable(),
  closedAt: z.string().nullable(),
  /** Absent from questions stored before answers were reused by question. */
  reusedAnswer: reusedAnswerSchema.nullable().optional(),
  /** The question a person put to the room again, when this is that second asking. */
  askedAgainOf: z.string().nullable().optional(),
});
export type BroadcastDto = z.infer<typeof broadcastSchema>;

export const broadcastResponseSchema = z.object({
  id: z.string(),
  broadcastId: z.string(),
  responderId: z.string(),
  responderName: z.string(),
  isHuman: z.boolean(),
  content: z.string(),
  durationMs: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
  createdAt: z.string(),
});
export type BroadcastResponseDto = z.infer<typeof broadcastResponseSchema>;

const humanQaSchema = z.object({ question: z.string(), answer: z.string() });
export type HumanQa = z.infer<typeof humanQaSchema>;
