import { z } from "zod";
import { errorDetailsSchema } from "./envelope";

export const runStatusSchema = z.enum(["queued", "running", "succeeded", "failed", "cancelled"]);
export const runTriggerSchema = z.enum(["human", "scheduler", "request", "broadcast", "dialogue", "command"]);

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

export const toolCallSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});

export const toolResultSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  output: z.unknown().optional(),
  error: z.string().optional(),
});

export const usageFiguresSchema = z.object({
  durationMs: z.number().nonnegative(),
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative(),
});

export const runStepPayloadSchema = z
  .object({
    runId: z.string(),
    agentId: z.string(),
    step: z.number().int().nonnegative(),
    text: z.string(),
    toolCalls: z.array(toolCallSummarySchema),
    toolResults: z.array(toolResultSummarySchema),
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
