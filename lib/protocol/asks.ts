import type { StoredEvent, StoredEventOf, StoredEventType } from "./events";

// Who asked whom: which events are one member of a room asking another, read the same way by
// the server (counting a whole room's history) and by the page (adding what arrives live).

export type AskKind = "request" | "question" | "help" | "command" | "dialogue";

/** The people in the room, as one end of an arrow: they answer questions and send messages. */
export const PEOPLE = "people";

/** One act of asking: `to` is an agent id (or `PEOPLE`), or the persona a request names. */
export interface Ask {
  from: string;
  to: { id: string } | { persona: string };
  kind: AskKind;
  /** What was asked, in the asker's words: the loop guard compares asks by them. */
  text: string;
}

/** How often `from` asked `to`, by kind. */
export interface AskEdge {
  from: string;
  to: string;
  kind: AskKind;
  count: number;
}

/** A room's count of who asked whom, as the server reads it from the whole event log. */
export interface AskCounts {
  /** Every event up to and including this one is counted; a page adds the later ones it receives. */
  through: number;
  edges: AskEdge[];
}

type AskReader<T extends StoredEventType> = (event: StoredEventOf<T>) => Ask[];

/**
 * For every stored event type, how it asks (or `null`: it asks nobody). The compiler refuses a
 * new event type until it is decided here, so a new way of asking cannot go uncounted.
 */
const ASK_READERS: { [T in StoredEventType]: AskReader<T> | null } = {
  "board.posted": ({ payload: { entry } }) =>
    entry.kind === "request" && entry.agentId && entry.targetPersona
      ? [
          {
            from: entry.agentId,
            to: { persona: entry.targetPersona },
            kind: entry.content.help === true ? "help" : "request",
            text: String(entry.content.ask ?? ""),
          },
        ]
      : [],
  "broadcast.asked": ({ payload: { broadcast } }) =>
    broadcast.mode === "human"
      ? [{ from: broadcast.agentId, to: { id: PEOPLE }, kind: "question", text: broadcast.question }]
      : broadcast.targetAgentIds.map((id) => ({
          from: broadcast.agentId,
          to: { id },
          kind: "question" as const,
          text: broadcast.question,
        })),
  "command.sent": ({ payload: { command } }) => [{ from: PEOPLE, to: { id: command.agentId }, kind: "command", text: command.text }],
  "dialogue.opened": ({ payload: { dialogue } }) => [
    { from: dialogue.askerAgentId, to: { id: dialogue.addresseeAgentId }, kind: "dialogue", text: dialogue.topic },
  ],
  // Answers, outcomes and the canvas's own changes: nobody asks anybody.
  "room.created": null,
  "room.updated": null,
  "seat.taken": null,
  "seat.focused": null,
  "command.delivered": null,
  "command.cancelled": null,
  // The answer to a help request, counted when it was asked.
  "help.answered": null,
  "knowledge.updated": null,
  "knowledge.cleared": null,
  "agent.updated": null,
  "agent.joined": null,
  "agent.token_revoked": null,
  "agent.remote_task": null,
  "admin.action": null,
  "review.started": null,
  "review.ready": null,
  "review.code": null,
  "review.verdict": null,
  "review.closed": null,
  "brainstorm.started": null,
  "brainstorm.stage": null,
  "brainstorm.submitted": null,
  "brainstorm.ideas_released": null,
  "brainstorm.gate_opened": null,
  "brainstorm.gate_decided": null,
  "brainstorm.completed": null,
  "dialogue.message": null,
  "dialogue.replied": null,
  "dialogue.closed": null,
  "node.created": null,
  "node.updated": null,
  "canvas.tidied": null,
  "node.deleted": null,
  "edge.created": null,
  "edge.updated": null,
  "edge.deleted": null,
  // A run a request started is counted as the request.
  "run.queued": null,
  "run.started": null,
  "run.step": null,
  "run.retrying": null,
  "run.finished": null,
  "limit.reached": null,
  "board.request_updated": null,
  "broadcast.opened": null,
  "broadcast.response": null,
  "broadcast.retrying": null,
  "broadcast.closed": null,
};

/** The event types that can record an act of asking. */
export const ASKING_EVENT_TYPES = (Object.keys(ASK_READERS) as StoredEventType[]).filter((type) => ASK_READERS[type] !== null);

/** The acts of asking one event records (none for most). */
export function asksIn(event: StoredEvent): Ask[] {
  const read = ASK_READERS[event.type] as AskReader<StoredEventType> | null;
  return read ? read(event as StoredEventOf<StoredEventType>) : [];
}

/**
 * Adds acts of asking (each `count` times) to edges, resolving a persona to its agent. An
 * agent asking itself, or a persona nobody in the room has, draws no arrow.
 */
export function tallyAsks(
  edges: AskEdge[],
  asks: (Omit<Ask, "text"> & { count?: number })[],
  agents: { id: string; persona: string }[],
): AskEdge[] {
  const byPersona = new Map(agents.map((agent) => [agent.persona, agent.id]));
  const counts = new Map(edges.map((edge) => [`${edge.from}|${edge.to}|${edge.kind}`, { ...edge }]));
  for (const ask of asks) {
    const to = "id" in ask.to ? ask.to.id : byPersona.get(ask.to.persona);
    if (!to || to === ask.from) continue;
    const key = `${ask.from}|${to}|${ask.kind}`;
    const edge = counts.get(key) ?? { from: ask.from, to, kind: ask.kind, count: 0 };
    edge.count += ask.count ?? 1;
    counts.set(key, edge);
  }
  return [...counts.values()];
}

/** Who asked whom in these events: requests, help, questions, people's messages, dialogues. */
export function askEdges(events: StoredEvent[], agents: { id: string; persona: string }[]): AskEdge[] {
  return tallyAsks([], events.flatMap(asksIn), agents);
}
