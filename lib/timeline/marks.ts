/**
 * What the timeline under a room's canvas marks: the moments a spectator looks for when going
 * back — an agent's run starting, a question asked, a dialogue opening, a decision at a
 * brainstorm's gate or on a review, a person's (or an admin's) edit. Shared by the server, which
 * lists a room's marks, and the page, which adds the marks of events as they arrive.
 */
export type MarkKind = "run" | "question" | "dialogue" | "gate" | "edit";

export interface TimelineMark {
  seq: number;
  kind: MarkKind;
  /** Who did it, as people see them. */
  who: string;
  /** The event's type, for the mark's label. */
  type: string;
  at: string;
}

const KIND_BY_TYPE: Record<string, MarkKind> = {
  "run.started": "run",
  "broadcast.asked": "question",
  "dialogue.opened": "dialogue",
  "brainstorm.gate_decided": "gate",
  "review.verdict": "gate",
};

/** The event types people make that count as their edits (when a person or an admin makes them). */
const EDIT_TYPES = [
  "node.created",
  "node.updated",
  "node.deleted",
  "edge.created",
  "edge.updated",
  "edge.deleted",
  "canvas.tidied",
  "command.sent",
  "room.updated",
  "agent.updated",
  "admin.action",
];

/** Every event type that can be a mark, for the query that lists them. */
export const MARKED_TYPES = [...Object.keys(KIND_BY_TYPE), ...EDIT_TYPES];

/** Whether a sender is a person: one seated in the room, or an admin. */
function isPerson(agent: string): boolean {
  return agent.startsWith("human:") || agent === "admin";
}

/** The mark an event makes on the timeline, or null for events the timeline passes over. */
export function markOf(event: { seq: number; type: string; agent: string; agent_name: string; timestamp: string }): TimelineMark | null {
  const kind = KIND_BY_TYPE[event.type] ?? (EDIT_TYPES.includes(event.type) && isPerson(event.agent) ? "edit" : null);
  return kind ? { seq: event.seq, kind, who: event.agent_name, type: event.type, at: event.timestamp } : null;
}

const VERBS: Record<string, string> = {
  "run.started": "started working",
  "broadcast.asked": "asked a question",
  "dialogue.opened": "opened a dialogue",
  "brainstorm.gate_decided": "decided at the gate",
  "review.verdict": "gave a verdict",
  "node.created": "added a note",
  "node.updated": "edited a note",
  "node.deleted": "deleted a note",
  "edge.created": "linked two notes",
  "edge.updated": "relabelled a link",
  "edge.deleted": "removed a link",
  "canvas.tidied": "tidied the canvas",
  "command.sent": "sent a message",
  "room.updated": "changed the room",
  "agent.updated": "changed an agent",
  "admin.action": "acted on a run",
};

/** A mark as a short sentence: "Songwriter started working". */
export function describeMark(mark: TimelineMark): string {
  return `${mark.who} ${VERBS[mark.type] ?? mark.type}`;
}
