import { tool } from "ai";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { canvasNodes } from "@/db/schema";
import { type CanvasWriteOptions, createNode } from "@/lib/canvas/create-node";
import { deleteNode } from "@/lib/canvas/delete-node";
import { createEdge, deleteEdge } from "@/lib/canvas/edges";
import { freeSpot, homeArea } from "@/lib/canvas/free-spot";
import { updateNode } from "@/lib/canvas/update-node";
import { LIMITS } from "@/lib/protocol";
import type { ActiveRun } from "../run-context";
import { earlierWrite, toolCallKey } from "./tool-call-key";
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

const createNodeInput = z.object({
  text: z.string().min(1).max(LIMITS.noteText).describe("The content: a verse, a scene, an idea…"),
  kind: kind.default("note"),
  x: coordinate.optional().describe("Left edge in canvas units; omit to be placed in free space"),
  y: coordinate.optional().describe("Top edge in canvas units; omit to be placed in free space"),
  color: color.optional(),
});

async function freePlaceFor(active: ActiveRun) {
  const occupied = await active.database.db
    .select({ x: canvasNodes.x, y: canvasNodes.y })
    .from(canvasNodes)
    .where(eq(canvasNodes.roomId, active.run.roomId));
  return freeSpot(homeArea(active.agent.persona), occupied);
}

/** Creates a node where the model asked for it, or in free space near the agent's home area. */
async function createPlacedNode(active: ActiveRun, input: z.infer<typeof createNodeInput>, options: CanvasWriteOptions) {
  const { text, kind: nodeKind, x, y, color: background } = input;
  const place = x === undefined || y === undefined ? await freePlaceFor(active) : { x, y };
  return createNode(
    active.database.db,
    active.run.roomId,
    active.author,
    { text, kind: nodeKind, x: place.x, y: place.y, color: background },
    options,
  );
}

/**
 * The five canvas tools of seed 002, acting as the agent and tagged with its run's
 * correlation id. Each write carries its call's idempotency key, so a step taken again after
 * its worker died does not change the canvas twice.
 */
export function createCanvasTools(active: ActiveRun) {
  const { database, run, author } = active;
  const options = (name: string, input: unknown) => ({
    correlationId: run.correlationId,
    idempotencyKey: toolCallKey(active, name, input),
  });
  return {
    create_node: tool({
      description: "Create a node on the shared canvas. Returns the node with its id.",
      inputSchema: createNodeInput,
      execute: (input) =>
        toolResult(async () => {
          const write = options("create_node", input);
          // Looked up before placing: the free spot has moved since the earlier write took it.
          const earlier = await earlierWrite(active, write.idempotencyKey, "node.created");
          const node = earlier ? earlier.payload.node : await createPlacedNode(active, input, write);
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
      execute: (input) =>
        toolResult(async () => {
          const write = options("update_node", input);
          const { nodeId, ...changes } = input;
          const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
          if (Object.keys(defined).length === 0) return { unchanged: true };
          const update = await updateNode(database.db, run.roomId, nodeId, author, defined, write);
          return { nodeId, version: update.version };
        }),
    }),
    delete_node: tool({
      description: "Delete a node and the edges attached to it.",
      inputSchema: z.object({ nodeId: z.string().min(1).describe("The id of the node to delete") }),
      execute: (input) =>
        toolResult(async () => {
          const { nodeId } = input;
          const deleted = await deleteNode(database.db, run.roomId, nodeId, author, options("delete_node", input));
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
          const edge = await createEdge(database.db, run.roomId, author, input, options("create_edge", input));
          return { edge: { id: edge.id, sourceId: edge.sourceId, targetId: edge.targetId, label: edge.label } };
        }),
    }),
    delete_edge: tool({
      description: "Remove an edge.",
      inputSchema: z.object({ edgeId: z.string().min(1).describe("The id of the edge to remove") }),
      execute: (input) =>
        toolResult(async () => {
          const { edgeId } = input;
          await deleteEdge(database.db, run.roomId, edgeId, author, options("delete_edge", input));
          return { edgeId };
        }),
    }),
  };
}
