import type { Connection, Node, OnMoveStart } from "@xyflow/react";
import { useCallback } from "react";
import type { LabelledFlowEdge, NoteFlowNode } from "./flow-types";

// React Flow copies most of its props into its own store, and every prop that arrives as a new
// object or function sets that store again, which makes every note, handle and minimap entry
// re-check what it draws. On a canvas of hundreds of notes that is most of the cost of showing a
// change, so what the canvas hands React Flow keeps its identity from one render to the next.

export const FIT_VIEW_OPTIONS = { padding: 0.3, maxZoom: 1.1 };
export const PRO_OPTIONS = { hideAttribution: true };
export const DELETE_KEYS = ["Backspace", "Delete"];
export const miniMapNodeColor = (node: Node) => (node as NoteFlowNode).data.accent;

type Write = (path: string, method: string, body?: unknown) => Promise<unknown>;

/** The canvas's handlers for what a participant does with notes and links, each sent to the server. */
export function useFlowWrites(write: Write, edgeLabel: string, setFollowing: (on: boolean) => void) {
  const onNodeDragStop = useCallback(
    (_event: unknown, _node: Node, dragged: Node[]) => {
      // Lane headings and folded lanes are drawn by the browser, not stored: only notes are written.
      for (const node of dragged) {
        if (node.type !== "note") continue;
        void write(`/nodes/${node.id}`, "PATCH", { x: node.position.x, y: node.position.y });
      }
    },
    [write],
  );
  const onNodesDelete = useCallback(
    (deleted: Node[]) => {
      for (const node of deleted) if (node.type === "note") void write(`/nodes/${node.id}`, "DELETE");
    },
    [write],
  );
  const onEdgesDelete = useCallback(
    (deleted: LabelledFlowEdge[]) => {
      for (const edge of deleted) void write(`/edges/${edge.id}`, "DELETE");
    },
    [write],
  );
  const onConnect = useCallback(
    (connection: Connection) => {
      if (!connection.source || !connection.target || connection.source === connection.target) return;
      void write("/edges", "POST", { sourceId: connection.source, targetId: connection.target, label: edgeLabel });
    },
    [write, edgeLabel],
  );
  const onMoveStart = useCallback<OnMoveStart>(
    (event) => {
      // Only a move the person made has an event: the camera's own moves have none.
      if (event) setFollowing(false);
    },
    [setFollowing],
  );
  return { onNodeDragStop, onNodesDelete, onEdgesDelete, onConnect, onMoveStart };
}
