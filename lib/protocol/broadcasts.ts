import { z } from "zod";

const broadcastModeSchema = z.enum(["agents", "human"]);
const broadcastStatusSchema = z.enum(["pending", "waiting_turn", "open", "complete", "timeout", "deferred", "skipped", "cancelled"]);

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
