import { z } from "zod";
import type { PayloadOf } from "./events";

const issueSeveritySchema = z.enum(["blocker", "major", "minor"]);
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
type DialogueMessageDto = z.infer<typeof dialogueMessageSchema>;

export const reviewOutcomeSchema = z.enum(["approved", "not_approved", "cancelled"]);

/** A build review's code node: the version the Coder submitted last, and its language. */
export interface CodeNodeDto {
  nodeId: string;
  reviewId: string;
  version: number;
  language: string | null;
}

/** A build review as the page shows it: where it stands, its last verdict, and how it closed. */
export interface BuildReviewDto {
  id: string;
  task: string;
  maxRounds: number;
  /** The review round under way (or the last one). */
  round: number;
  /** The latest code version the Coder submitted; 0 before the first. */
  version: number;
  verdict: PayloadOf<"review.verdict"> | null;
  closed: PayloadOf<"review.closed"> | null;
}

/** A dialogue as the page shows it: its opening, its messages so far, and how it closed. */
export interface DialogueThreadDto {
  dialogue: DialogueDto;
  messages: (DialogueMessageDto & { at: string })[];
  closed: (PayloadOf<"dialogue.closed"> & { at: string }) | null;
}
