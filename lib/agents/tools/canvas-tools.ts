import { tool } from "ai";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { canvasNodes } from "@/db/schema";
import { createNode } from "@/lib/canvas/create-node";
import { deleteNode } from "@/lib/canvas/delete-node";
import { createEdge, deleteEdge } from "@/lib/canvas/edges";
import { freeSpot, homeArea } from "@/lib/canvas/free-spot";
import { updateNode } from "@/lib/canvas/update-node";
import { LIMITS } from "@/lib/protocol";
import type { ActiveRun } from "../run-context";
import { toolResult } from "./tool-result";

const kind = z
  .string()
  .regex(/^[a-z][a-z0-9-]*$/)
  .max(LIMITS.nodeKind)
  .describe("What the node is: lyric, scene, idea, story, theme, note or group");
const coordinate = z.number().finite().min(-LIMITS.coordinate).max(LIMITS.coordinate);
const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/)
  .describe("Background colour as #rrggbb (a light tint reads best)");

async function freePlaceFor(active: ActiveRun) {
  const occupied = await active.database.db
    .select({ x: canvasNodes.x, y: canvasNodes.y })
    .from(canvasNodes)
    .where(eq(canvasNodes.roomId, active.run.roomId));
  return freeSpot(homeArea(active.agent.persona), occupied);
}

/** The five canvas tools of seed 002, acting as the agent and tagged with its run's correlation id. */
export function createCanvasTools(active: ActiveRun) {
  const { database, run, author } = active;
  const options = { correlationId: run.correlationId };
  return {
    create_node: tool({
      description: "Create a node on the shared canvas. Returns the node with its id.",
      inputSchema: z.object({
        text: z.string().min(1).max(LIMITS.noteText).describe("The content: a verse, a scene, an idea…"),
        kind: kind.default("note"),
        x: coordinate.optional().describe("Left edge in canvas units; omit to be placed in free space"),
        y: coordinate.optional().describe("Top edge in canvas units; omit to be placed in free space"),
        color: color.optional(),
      }),
      execute: ({ text, kind: nodeKind, x, y, color: background }) =>
        toolResult(async () => {
          const place = x === undefined || y === undefined ? await freePlaceFor(active) : { x, y };
          const node = await createNode(
            database.db,
            run.roomId,
            author,
            { text, kind: nodeKind, x: place.x, y: place.y, color: background },
            options,
          );
          active.state.createdNodeIds.push(node.id);
          return { node: { id: node.id, kind: node.kind, x: node.x, y: node.y, text: node.text } };
        }),
    }),
    update_node: tool({
      description: "Change a node's text, position or colour.",
      inputSchema: z.object({
        nodeId: z.string().min(1).describe("The id of the node to change"),
        text: z.string().min(1).max(LIMITS.noteText).optional(),
        x: coordinate.optional(),
        y: coordinate.optional(),
        color: color.optional(),
      }),
      execute: ({ nodeId, ...changes }) =>
        toolResult(async () => {
          const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
          if (Object.keys(defined).length === 0) return { unchanged: true };
          const update = await updateNode(database.db, run.roomId, nodeId, author, defined, options);
          return { nodeId, version: update.version };
        }),
    }),
    delete_node: tool({
      description: "Delete a node and the edges attached to it.",
      inputSchema: z.object({ nodeId: z.string().min(1).describe("The id of the node to delete") }),
      execute: ({ nodeId }) =>
        toolResult(async () => {
          const deleted = await deleteNode(database.db, run.roomId, nodeId, author, options);
          return { nodeId, removedEdges: deleted.edgeIds.length };
        }),
    }),
    create_edge: tool({
      description: "Connect two nodes with a labelled edge, e.g. a scene that \"illustrates\" a verse.",
      inputSchema: z.object({
        sourceId: z.string().min(1).describe("The node the edge starts from"),
        targetId: z.string().min(1).describe("The node the edge points to"),
        label: z.string().max(LIMITS.edgeLabel).default("").describe("A short relation: illustrates, echoes, continues"),
      }),
      execute: (input) =>
        toolResult(async () => {
          const edge = await createEdge(database.db, run.roomId, author, input, options);
          return { edge: { id: edge.id, sourceId: edge.sourceId, targetId: edge.targetId, label: edge.label } };
        }),
    }),
    delete_edge: tool({
      description: "Remove an edge.",
      inputSchema: z.object({ edgeId: z.string().min(1).describe("The id of the edge to remove") }),
      execute: ({ edgeId }) =>
        toolResult(async () => {
          await deleteEdge(database.db, run.roomId, edgeId, author, options);
          return { edgeId };
        }),
    }),
  };
}
