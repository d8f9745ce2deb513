import { z } from "zod";

const said = z.object({ from: z.string(), text: z.string() });

/**
 * A dialogue's turn as data, beside its words (`prompts.ts` writes both): whose turn it is
 * (`answer`: the addressee's, `reply`: the asker's), with whom, which round, and what was said.
 */
export const dialogueTaskSchema = z.discriminatedUnion("turn", [
  z.object({
    workflow: z.literal("dialogue"),
    turn: z.literal("answer"),
    /** Who asked. */
    with: z.string(),
    round: z.number().int().positive(),
    maxRounds: z.number().int().positive(),
    topic: z.string(),
    /** The asker's latest reply, from the second round on. */
    followUp: z.string().nullable(),
    earlier: z.array(said),
  }),
  z.object({
    workflow: z.literal("dialogue"),
    turn: z.literal("reply"),
    /** Who answered. */
    with: z.string(),
    round: z.number().int().positive(),
    maxRounds: z.number().int().positive(),
    topic: z.string(),
    answer: z.string(),
    earlier: z.array(said),
  }),
]);

export type DialogueTask = z.infer<typeof dialogueTaskSchema>;
