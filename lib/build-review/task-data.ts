import { z } from "zod";

const issue = z.object({ severity: z.string(), text: z.string() });

/**
 * What a build review asks of one of its runs, as data beside the task's words (`prompts.ts`
 * writes both): the step, the task, and what the step works from. A model that acts on the
 * prompt reads this, never the words.
 */
export const buildReviewTaskSchema = z.discriminatedUnion("step", [
  z.object({ workflow: z.literal("build-review"), step: z.literal("brief"), task: z.string() }),
  z.object({ workflow: z.literal("build-review"), step: z.literal("ready"), task: z.string(), brief: z.string() }),
  z.object({
    workflow: z.literal("build-review"),
    step: z.literal("code"),
    task: z.string(),
    brief: z.string(),
    version: z.number().int().positive(),
    round: z.number().int().positive(),
    maxRounds: z.number().int().positive(),
    /** The Reviewer's issues with the version before, if any. */
    issues: z.array(issue),
    /** What was said in the dialogue about the version before. */
    notes: z.array(z.string()),
  }),
  z.object({
    workflow: z.literal("build-review"),
    step: z.literal("review"),
    task: z.string(),
    brief: z.string(),
    version: z.number().int().positive(),
    round: z.number().int().positive(),
    maxRounds: z.number().int().positive(),
    code: z.string(),
    notes: z.array(z.string()),
  }),
]);

export type BuildReviewTask = z.infer<typeof buildReviewTaskSchema>;
