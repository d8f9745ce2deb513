import type { AgentDto, StoredEvent } from "@/lib/protocol";

export interface FeedLine {
  /** A short verb phrase after the actor's name: "added a note". */
  text: string;
  /** Quoted content shown under the line, if any. */
  detail?: string;
  /** Canvas nodes the entry refers to; clicking the entry highlights them. */
  nodeIds: string[];
  tone: "canvas" | "people" | "room" | "agent" | "collaboration" | "error";
  /** Moves and other noise are shown compactly. */
  quiet?: boolean;
}

export interface DescribeContext {
  agents: AgentDto[];
  nodeText: (nodeId: string) => string | undefined;
}

function excerpt(text: string | undefined, length = 80): string | undefined {
  if (!text) return undefined;
  const single = text.replace(/\s+/g, " ").trim();
  return single.length > length ? `${single.slice(0, length - 1)}…` : single;
}

/** Turns a stored event into one readable line of the activity feed. */
export function describeEvent(event: StoredEvent, context: DescribeContext): FeedLine {
  switch (event.type) {
    case "room.created":
      return { text: `opened the room with ${event.payload.agents.length} agents`, nodeIds: [], tone: "room" };
    case "room.updated":
      return {
        text: event.payload.title ? `renamed the room to “${event.payload.title}”` : "changed the room's settings",
        nodeIds: [],
        tone: "room",
      };
    case "seat.taken":
      return { text: "took a seat", nodeIds: [], tone: "people" };
    case "node.created": {
      const node = event.payload.node;
      const what = node.kind === "note" ? "a note" : `a ${node.kind}`;
      return { text: `added ${what}`, detail: excerpt(node.text), nodeIds: [node.id], tone: "canvas" };
    }
    case "node.updated": {
      const { changes, nodeId } = event.payload;
      if (changes.text !== undefined) {
        return { text: "edited a note", detail: excerpt(changes.text), nodeIds: [nodeId], tone: "canvas" };
      }
      if (changes.x !== undefined || changes.y !== undefined) {
        return { text: "moved a note", detail: excerpt(context.nodeText(nodeId), 40), nodeIds: [nodeId], tone: "canvas", quiet: true };
      }
      return { text: "restyled a note", nodeIds: [nodeId], tone: "canvas", quiet: true };
    }
    case "node.deleted":
      return { text: "deleted a note", nodeIds: [], tone: "canvas" };
    case "edge.created": {
      const edge = event.payload.edge;
      const from = excerpt(context.nodeText(edge.sourceId), 30) ?? "a note";
      const to = excerpt(context.nodeText(edge.targetId), 30) ?? "a note";
      return {
        text: edge.label ? `linked two notes: “${edge.label}”` : "linked two notes",
        detail: `${from} → ${to}`,
        nodeIds: [edge.sourceId, edge.targetId],
        tone: "canvas",
      };
    }
    case "edge.updated":
      return { text: `relabelled a link “${event.payload.label}”`, nodeIds: [], tone: "canvas", quiet: true };
    case "edge.deleted":
      return { text: "removed a link", nodeIds: [], tone: "canvas", quiet: true };
    default:
      return { text: (event as StoredEvent).type, nodeIds: [], tone: "room", quiet: true };
  }
}
