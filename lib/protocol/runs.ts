import { z } from "zod";
import { errorDetailsSchema } from "./envelope";

export const runStatusSchema = z.enum(["queued", "running", "succeeded", "failed", "cancelled"]);
const runTriggerSchema = z.enum(["human", "scheduler", "request", "broadcast", "dialogue", "command"]);

export const runSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  status: runStatusSchema,
  trigger: runTriggerSchema,
  requestedBy: z.string(),
  prompt: z.string(),
  parentRunId: z.string().nullable(),
  chainDepth: z.number().int(),
  correlationId: z.string(),
  selectedNodeIds: z.array(z.string()),
  requestEntryId: z.string().nullable(),
  attempts: z.number().int(),
  steps: z.number().int(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
  error: errorDetailsSchema.nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type RunDto = z.infer<typeof runSchema>;

const toolCallSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});

const toolResultSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  output: z.unknown().optional(),
  error: z.string().optional(),
});

const usageFiguresSchema = z.object({
  durationMs: z.number().nonnegative(),
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative(),
});

/**
 * What the model was given for a step, in brief: how long the conversation it read was, and what
 * was new in it since the step before.
 */
const promptSummarySchema = z.object({
  /** Messages the model read, its system prompt included. */
  messageCount: z.number().int().nonnegative(),
  /** Their characters, and about as many tokens (four characters a token; the provider's own count is the step's `inputTokens`). */
  characters: z.number().int().nonnegative(),
  tokens: z.number().int().nonnegative(),
  /** New since the step before. */
  added: z.object({
    /** The opening message (the task and the room as it was): on a run's first step. */
    opening: z.boolean(),
    /** Results of the tools the step before called. */
    toolResults: z.number().int().nonnegative(),
    /** Messages for the agent that arrived (a participant's message, a request for help). */
    messages: z.number().int().nonnegative(),
    /** Other notes that arrived (what its shadow answered for it, what teammates left it). */
    notes: z.number().int().nonnegative(),
  }),
});
export type PromptSummary = z.infer<typeof promptSummarySchema>;

export const runStepPayloadSchema = z
  .object({
    runId: z.string(),
    agentId: z.string(),
    step: z.number().int().nonnegative(),
    text: z.string(),
    toolCalls: z.array(toolCallSummarySchema),
    toolResults: z.array(toolResultSummarySchema),
    /** Absent from steps recorded before it was kept. */
    prompt: promptSummarySchema.optional(),
  })
  .extend(usageFiguresSchema.shape);

export const runFinishedPayloadSchema = z
  .object({
    runId: z.string(),
    agentId: z.string(),
    status: z.enum(["succeeded", "failed", "cancelled"]),
    /**
     * Totals over all the run's attempts, so a workflow is costed in full: the steps saved, and
     * the tokens and cost of every model call that returned usage, also one whose step was lost.
     */
    steps: z.number().int(),
    /** How many times a worker started the run (a worker that died leaves it to another). */
    attempts: z.number().int().nonnegative(),
    error: errorDetailsSchema.nullable(),
  })
  .extend(usageFiguresSchema.shape);

/** The limits that stop agents (docs/behaviour/limits.md). */
const limitNameSchema = z.enum([
  "room_daily_tokens",
  "room_daily_cost",
  "instance_daily_tokens",
  "instance_daily_cost",
  "workflow_cost",
  "repeated_tool_call",
  "repeated_exchange",
]);
export type LimitName = z.infer<typeof limitNameSchema>;

/** A limit stopped an agent: which one, what it allows and what was used, and why in words. */
export const limitReachedPayloadSchema = z.object({
  limit: limitNameSchema,
  runId: z.string().nullable(),
  agentId: z.string().nullable(),
  message: z.string(),
  /** What was used and what is allowed, in the limit's unit (tokens, US dollars, repeats). */
  used: z.number().nonnegative(),
  allowed: z.number().nonnegative(),
  /** When a daily budget is whole again (the next midnight, UTC); null for other limits. */
  resetsAt: z.string().nullable(),
  /**
   * What the run (before it began) or its next step was expected to use, in the limit's unit, when
   * a budget with something left would have been gone past; absent when the budget was spent.
   */
  expected: z.number().nonnegative().optional(),
});
export type LimitReachedPayload = z.infer<typeof limitReachedPayloadSchema>;

/** What a room may still spend today: the tighter of its own budget and the instance's. */
const roomBudgetSchema = z.object({
  /** Tokens and US dollars left today; null when neither the room nor the instance sets that limit. */
  tokensLeft: z.number().nullable(),
  costLeftUsd: z.number().nullable(),
  /** The limits behind them, for the label: null for no limit. */
  tokenLimit: z.number().nullable(),
  costLimitUsd: z.number().nullable(),
  /** Next midnight (UTC), when the day's budgets are whole again. */
  resetsAt: z.string(),
});
export type RoomBudgetDto = z.infer<typeof roomBudgetSchema>;
