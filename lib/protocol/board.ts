import { z } from "zod";
import { LIMITS } from "./limits";

const boardEntryKinds = ["theme", "intention", "contribution", "request", "reaction", "finding"] as const;
export const boardEntryKindSchema = z.enum(boardEntryKinds);
export type BoardEntryKindName = z.infer<typeof boardEntryKindSchema>;

const shortText = z.string().trim().min(1).max(LIMITS.boardText);
const nodeIdList = z.array(z.string().min(1).max(64)).max(30);
export const findingSeverities = ["low", "medium", "high"] as const;
export const findingSeveritySchema = z.enum(findingSeverities);
export type FindingSeverity = z.infer<typeof findingSeveritySchema>;

const hex = z.string().regex(/^#[0-9a-fA-F]{6}$/, "palette colours are #rrggbb");

/** The typed content of each kind of board entry (docs/behaviour/creative-canvas.md). */
export const boardContentSchemas = {
  theme: z.strictObject({
    mood: z.string().trim().min(1).max(60).describe("One word or short phrase, e.g. melancholic"),
    palette: z.array(hex).max(8).default([]).describe("Colours as #rrggbb"),
    keywords: z.array(z.string().trim().min(1).max(40)).max(12).default([]),
  }),
  intention: z.strictObject({
    plan: shortText.describe("What you are about to do"),
    targetArea: z.strictObject({ x: z.number().finite(), y: z.number().finite() }).optional(),
    forPersona: z.string().max(40).nullable().optional(),
  }),
  contribution: z.strictObject({
    summary: shortText.describe("What you just created"),
    nodeIds: nodeIdList.default([]).describe("The nodes you created"),
    mood: z.string().trim().max(60).optional(),
  }),
  request: z.strictObject({
    targetPersona: z.string().min(1).max(40),
    ask: shortText,
    refNodeIds: nodeIdList.default([]),
    /** A help request: the target's answer goes back to the asker as a message. */
    help: z.literal(true).optional(),
  }),
  reaction: z.strictObject({
    toEntryId: z.string().min(1).max(64).describe("The board entry you are reacting to"),
    response: shortText,
  }),
  finding: z.strictObject({
    finding: z.string().trim().min(1).max(LIMITS.findingText),
    severity: findingSeveritySchema.default("medium"),
    /** Nodes the finding is about. */
    nodeIds: nodeIdList.default([]),
  }),
} as const;

export const requestStatusSchema = z.enum(["open", "queued", "in_progress", "answered", "cancelled", "failed"]);

export const boardEntrySchema = z.object({
  id: z.string(),
  runId: z.string().nullable(),
  agentId: z.string().nullable(),
  agentName: z.string(),
  kind: boardEntryKindSchema,
  content: z.record(z.string(), z.unknown()),
  targetPersona: z.string().nullable(),
  requestStatus: requestStatusSchema.nullable(),
  answersEntryId: z.string().nullable(),
  /** Null for findings: they never expire. */
  expiresAt: z.string().nullable(),
  createdAt: z.string(),
});
export type BoardEntryDto = z.infer<typeof boardEntrySchema>;
