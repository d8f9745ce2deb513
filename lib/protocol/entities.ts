import { z } from "zod";
import { LIMITS } from "./limits";

const authorKindSchema = z.enum(["human", "agent"]);

const coordinate = z.number().finite().min(-LIMITS.coordinate).max(LIMITS.coordinate);
const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, "must be a #rrggbb colour");

export const canvasNodeSchema = z.object({
  id: z.string(),
  kind: z.string().max(LIMITS.nodeKind),
  text: z.string().max(LIMITS.noteText),
  x: coordinate,
  y: coordinate,
  width: z.number().positive().max(LIMITS.nodeSize).nullable(),
  height: z.number().positive().max(LIMITS.nodeSize).nullable(),
  color: hexColor.nullable(),
  authorKind: authorKindSchema,
  authorId: z.string(),
  authorName: z.string(),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type CanvasNodeDto = z.infer<typeof canvasNodeSchema>;

export const canvasEdgeSchema = z.object({
  id: z.string(),
  sourceId: z.string(),
  targetId: z.string(),
  label: z.string().max(LIMITS.edgeLabel),
  authorKind: authorKindSchema,
  authorId: z.string(),
  authorName: z.string(),
  createdAt: z.string(),
});
export type CanvasEdgeDto = z.infer<typeof canvasEdgeSchema>;

export const agentSchema = z.object({
  id: z.string(),
  persona: z.string(),
  name: z.string(),
  role: z.string(),
  description: z.string(),
  color: z.string(),
  model: z.string(),
  /** The agent's own endpoint, when it does not use the server-wide one. */
  endpoint: z.string().nullable().optional(),
  position: z.number().int(),
  /** Why the agent's model cannot run on this server (a missing key), when it cannot. */
  unavailableReason: z.string().nullable().optional(),
});
export type AgentDto = z.infer<typeof agentSchema>;

const roomSummarySchema = z.object({
  id: z.string(),
  title: z.string(),
  template: z.string(),
  lastSeq: z.number().int(),
  createdAt: z.string(),
  lastActivityAt: z.string(),
});
export type RoomSummaryDto = z.infer<typeof roomSummarySchema>;

export const coordinateSchema = coordinate;
export const hexColorSchema = hexColor;
