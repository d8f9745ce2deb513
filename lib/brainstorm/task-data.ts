import { z } from "zod";
import { stageKeySchema } from "@/lib/protocol/brainstorm";

/**
 * What a brainstorm stage asks of one of its runs, as data beside the task's words
 * (`stageTask` writes both): the stage, the problem, the persona's part, and why it runs again.
 */
export const brainstormTaskSchema = z.object({
  workflow: z.literal("brainstorm"),
  stage: stageKeySchema,
  /** Its number in the process (0–8) and its name. */
  number: z.number().int().nonnegative(),
  name: z.string(),
  problem: z.string(),
  persona: z.string(),
  /** Why the persona is asked again: the stage fell short. */
  shortfall: z.string().nullable(),
  /** Why the stage runs again in a new pass. */
  again: z.string().nullable(),
  /** The one candidate this pass covers, when not all of them. */
  focus: z.string().nullable(),
  /** A participant's comment sending the ranking back. */
  redirect: z.string().nullable(),
});

export type BrainstormTask = z.infer<typeof brainstormTaskSchema>;

/**
 * The prior stages' artifacts a stage run reads, section by section (`key`), each line's data
 * as `items` beside the line: what a model that acts on the prompt reads instead of the lines.
 */
export const stageSectionItems = {
  framing: z.object({
    part: z.enum(["scopeIn", "scopeOut", "constraint", "successCriterion", "keyQuestion"]),
    text: z.string(),
  }),
  idea: z.object({ id: z.string(), author: z.string(), title: z.string(), oneLiner: z.string() }),
  precedent: z.object({
    id: z.string(),
    name: z.string(),
    domain: z.string(),
    lesson: z.string(),
    tried: z.string(),
    outcome: z.string(),
  }),
  candidate: z.object({
    id: z.string(),
    cluster: z.string(),
    title: z.string(),
    summary: z.string(),
    sourceIdeas: z.array(z.string()),
    combination: z.boolean(),
    /** How it stood after checks and pushback, where the section says. */
    standing: z.string().nullable(),
  }),
  /** A fact check's rating or a pushback verdict of one candidate, and what its author said. */
  judgement: z.object({ candidateId: z.string(), agent: z.string(), rating: z.string(), text: z.string() }),
  ranked: z.object({ place: z.number(), candidateId: z.string(), title: z.string(), score: z.number(), standing: z.string() }),
  proposal: z.object({ part: z.enum(["concept", "step", "risk", "firstAction"]), text: z.string(), mitigation: z.string().nullable() }),
  teammate: z.object({ name: z.string(), persona: z.string(), role: z.string() }),
};

type Items = typeof stageSectionItems;

/** Each section's key and the kind of its items. */
export const STAGE_SECTION_KINDS = {
  framing: "framing",
  "earlier-ideas": "idea",
  ideas: "idea",
  precedents: "precedent",
  candidates: "candidate",
  chosen: "candidate",
  "earlier-checks": "judgement",
  "fact-checks": "judgement",
  pushback: "judgement",
  "chosen-checks": "judgement",
  ranking: "ranked",
  proposal: "proposal",
  "co-participants": "teammate",
} as const satisfies Record<string, keyof Items>;

export type StageSectionKey = keyof typeof STAGE_SECTION_KINDS;
export type StageSectionItem<K extends StageSectionKey> = z.infer<Items[(typeof STAGE_SECTION_KINDS)[K]]>;
