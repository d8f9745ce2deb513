import { z } from "zod";
import { LIMITS, coordinateSchema, hexColorSchema } from "@/lib/protocol";

const size = z.number().positive().max(LIMITS.nodeSize);

const nodeFields = {
  text: z.string().max(LIMITS.noteText, `Text is limited to ${LIMITS.noteText} characters`),
  x: coordinateSchema,
  y: coordinateSchema,
  color: hexColorSchema.optional(),
  kind: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, "kind is lower-case letters, digits and dashes")
    .max(LIMITS.nodeKind)
    .optional(),
  width: size.optional(),
  height: size.optional(),
};

const createNodeInputSchema = z.strictObject(nodeFields);
export type CreateNodeInput = z.infer<typeof createNodeInputSchema>;

/**
 * A person's new note: where they put it, or, given only `near` (or nothing), the free spot
 * nearest that point, so a note added from the toolbar never lands on other work. What kind of
 * work a node is (a lyric, a scene) is the agents' to say.
 */
const { kind: _agentsOnly, ...noteFields } = nodeFields;
export const placeNoteInputSchema = z
  .strictObject({
    ...noteFields,
    x: coordinateSchema.optional(),
    y: coordinateSchema.optional(),
    near: z.strictObject({ x: coordinateSchema, y: coordinateSchema }).optional(),
  })
  .refine((input) => (input.x === undefined) === (input.y === undefined), "Give both x and y, or neither")
  .refine((input) => input.x === undefined || input.near === undefined, "Give a position or a spot to be near, not both");

export const updateNodeInputSchema = createNodeInputSchema.partial();
export type UpdateNodeInput = z.infer<typeof updateNodeInputSchema>;

export const createEdgeInputSchema = z.strictObject({
  sourceId: z.string().min(1).max(64),
  targetId: z.string().min(1).max(64),
  label: z.string().trim().max(LIMITS.edgeLabel, `Labels are limited to ${LIMITS.edgeLabel} characters`).default(""),
});
export type CreateEdgeInput = z.input<typeof createEdgeInputSchema>;

export const updateEdgeInputSchema = z.strictObject({
  label: z.string().trim().max(LIMITS.edgeLabel, `Labels are limited to ${LIMITS.edgeLabel} characters`),
});
export type UpdateEdgeInput = z.infer<typeof updateEdgeInputSchema>;
