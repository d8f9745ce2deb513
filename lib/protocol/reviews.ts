import { z } from "zod";

export const issueSeveritySchema = z.enum(["blocker", "major", "minor"]);
export const reviewIssueSchema = z.object({
  severity: issueSeveritySchema,
  text: z.string().trim().min(1).max(600),
  nodeId: z.string().max(64).nullable().optional(),
});

export const dialogueSchema = z.object({
  id: z.string(),
  askerAgentId: z.string(),
  addresseeAgentId: z.string(),
  topic: z.string(),
  reason: z.string(),
  maxRounds: z.number().int(),
  reviewId: z.string().nullable(),
  openedAt: z.string(),
});
export type DialogueDto = z.infer<typeof dialogueSchema>;

export const dialogueOutcomeSchema = z.enum(["resolved", "unresolved", "cancelled"]);

export const dialogueMessageSchema = z.object({
  dialogueId: z.string(),
  round: z.number().int().positive(),
  fromAgentId: z.string(),
  toAgentId: z.string(),
  text: z.string(),
  runId: z.string(),
  durationMs: z.number().nonnegative(),
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative(),
  /** False when the model has no known price: its cost is unknown, not zero. */
  costKnown: z.boolean(),
});
export type DialogueMessageDto = z.infer<typeof dialogueMessageSchema>;

export const reviewOutcomeSchema = z.enum(["approved", "not_approved", "cancelled"]);

/** A build review's code node: the version the Coder submitted last, and its language. */
export interface CodeNodeDto {
  nodeId: string;
  reviewId: string;
  version: number;
  language: string | null;
}
