import { z } from "zod";
import { LIMITS, coordinateSchema, hexColorSchema } from "@/lib/protocol";

const size = z.number().positive().max(LIMITS.nodeSize);

export const createNodeInputSchema = z.strictObject({
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
});
export type CreateNodeInput = z.infer<typeof createNodeInputSchema>;

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
