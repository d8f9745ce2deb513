import { z } from "zod";
import { createNode } from "@/lib/canvas/create-node";
import { deleteNode } from "@/lib/canvas/delete-node";
import { createEdge, deleteEdge } from "@/lib/canvas/edges";
import { refuseChangingOthersNodesWhileAlone } from "../team";
import { homeArea } from "@/lib/canvas/free-spot";
import { updateNode } from "@/lib/canvas/update-node";
import { LIMITS } from "@/lib/protocol";
import type { ActiveRun } from "../run-context";
import { writingTool } from "./writing-tool";

const kind = z
  .string()
  .regex(/^[a-z][a-z0-9-]*$/)
  .max(LIMITS.nodeKind)
  .describe("What the node is, one lowercase word: one of the kinds your guidance names");
const coordinate = z.number().finite().min(-LIMITS.coordinate).max(LIMITS.coordinate);
const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/)
  .describe("Background colour as #rrggbb (a light tint reads best)");

const createNodeInput = z.object({
  text: z.string().min(1).max(LIMITS.noteText).describe("The content: short, one thing per node"),
  kind: kind.default("note"),
  x: coordinate
    .optional()
    .describe("Left edge in canvas units; a taken spot moves the node to the nearest free one; omit to be placed near your area"),
  y: coordinate
    .optional()
    .describe("Top edge in canvas units; a taken spot moves the node to the nearest free one; omit to be placed near your area"),
  color: color.optional(),
});

/**
 * The five canvas tools (docs/behaviour/creative-canvas.md), acting as the agent and tagged with its run's
 * correlation id. Each write carries its call's idempotency key, so a step taken again after
 * its worker died does not change the canvas twice.
 */
export function createCanvasTools(active: ActiveRun) {
  const { database, run, author } = active;
  return {
    create_node: writingTool(active, "create_node", {
      description: "Create a node on the shared canvas. Returns the node with its id.",
      inputSchema: createNodeInput,
      write: async (input, write) => {
        const { text, kind: nodeKind, x, y, color: background } = input;
        const node = await createNode(
          database.db,
          run.roomId,
          author,
          { text, kind: nodeKind, x, y, color: background },
          // Without a position, the node goes to free space near the agent's home area.
          { ...write, placeNear: homeArea(active.agent.persona) },
        );
        active.state.createdNodeIds.push(node.id);
        return { node: { id: node.id, kind: node.kind, x: node.x, y: node.y, text: node.text } };
      },
    }),
    update_node: writingTool(active, "update_node", {
      description:
        "Change a node's text, position or colour. A node that grows or moves onto other work goes to the nearest free spot; " +
        "the answer says where it is then.",
      inputSchema: z.object({
        nodeId: z.string().min(1).describe("The id of the node to change"),
        text: z.string().min(1).max(LIMITS.noteText).optional(),
        x: coordinate.optional().describe("New left edge in canvas units; a taken spot moves the node to the nearest free one"),
        y: coordinate.optional().describe("New top edge in canvas units; a taken spot moves the node to the nearest free one"),
        color: color.optional(),
      }),
      write: async (input, write) => {
        const { nodeId, ...changes } = input;
        const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
        if (Object.keys(defined).length === 0) return { unchanged: true };
        await refuseChangingOthersNodesWhileAlone(database.db, run.roomId, active.agent, nodeId);
        const update = await updateNode(database.db, run.roomId, nodeId, author, defined, write);
        const { x: placedX, y: placedY } = update.changes;
        return { nodeId, version: update.version, ...(placedX !== undefined && placedY !== undefined ? { x: placedX, y: placedY } : {}) };
      },
    }),
    delete_node: writingTool(active, "delete_node", {
      description: "Delete a node and the edges attached to it.",
      inputSchema: z.object({ nodeId: z.string().min(1).describe("The id of the node to delete") }),
      write: async ({ nodeId }, write) => {
        await refuseChangingOthersNodesWhileAlone(database.db, run.roomId, active.agent, nodeId);
        const deleted = await deleteNode(database.db, run.roomId, nodeId, author, write);
        return { nodeId, removedEdges: deleted.edgeIds.length };
      },
    }),
    create_edge: writingTool(active, "create_edge", {
      description: "Connect two nodes with a labelled edge: how the one relates to the other.",
      inputSchema: z.object({
        sourceId: z.string().min(1).describe("The node the edge starts from"),
        targetId: z.string().min(1).describe("The node the edge points to"),
        label: z.string().max(LIMITS.edgeLabel).default("").describe("A short relation, such as your guidance suggests"),
      }),
      write: async (input, write) => {
        const edge = await createEdge(database.db, run.roomId, author, input, write);
        return { edge: { id: edge.id, sourceId: edge.sourceId, targetId: edge.targetId, label: edge.label } };
      },
    }),
    delete_edge: writingTool(active, "delete_edge", {
      description: "Remove an edge.",
      inputSchema: z.object({ edgeId: z.string().min(1).describe("The id of the edge to remove") }),
      write: async ({ edgeId }, write) => {
        await deleteEdge(database.db, run.roomId, edgeId, author, write);
        return { edgeId };
      },
    }),
  };
}
