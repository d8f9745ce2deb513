import { and, asc, eq, gt, inArray, lte } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { events } from "@/db/schema";
import { eventFromRow } from "@/lib/events/event-row";
import {
  type AgentDto,
  type BoardEntryDto,
  type CanvasEdgeDto,
  type CanvasNodeDto,
  type StoredEvent,
  type StoredEventType,
  storedEventSchema,
} from "@/lib/protocol";

/** What of a room a fork starts from, as it stood right after one event. */
export interface RoomAt {
  seq: number;
  /** When that event happened. */
  at: string;
  title: string;
  template: string;
  /** Its settings then; null when its first event did not record them and nothing changed them since. */
  settings: Record<string, unknown> | null;
  agents: AgentDto[];
  nodes: Map<string, CanvasNodeDto>;
  edges: Map<string, CanvasEdgeDto>;
  /** Every board entry posted up to then, expired or not, with its request status then. */
  board: Map<string, BoardEntryDto>;
}

/** The events that change what a fork copies; the rest of the log is not read. */
const COPIED_TYPES = [
  "room.created",
  "room.updated",
  "agent.updated",
  "agent.joined",
  "node.created",
  "node.updated",
  "canvas.tidied",
  "node.deleted",
  "edge.created",
  "edge.updated",
  "edge.deleted",
  "board.posted",
  "board.request_updated",
] as const satisfies readonly StoredEventType[];

const PAGE = 1000;

/**
 * Folds a room's log up to event `seq` into the part of its state a fork copies: its title and
 * settings, its agents, notes, links and board. It reads only the events that change those, a
 * page at a time, and applies them as the room page's reducer does, so a fork starts from what
 * a viewer saw at that moment. Events it cannot read are stepped over, as the page steps over them.
 */
export async function roomAt(db: DbOrTx, roomId: string, seq: number): Promise<RoomAt | null> {
  const state: RoomAt = {
    seq,
    at: "",
    title: "",
    template: "",
    settings: null,
    agents: [],
    nodes: new Map(),
    edges: new Map(),
    board: new Map(),
  };
  const [moment] = await db
    .select({ createdAt: events.createdAt })
    .from(events)
    .where(and(eq(events.roomId, roomId), eq(events.seq, seq)));
  if (!moment) return null;
  state.at = moment.createdAt.toISOString();
  let after = 0;
  for (;;) {
    const rows = await db
      .select()
      .from(events)
      .where(and(eq(events.roomId, roomId), gt(events.seq, after), lte(events.seq, seq), inArray(events.type, [...COPIED_TYPES])))
      .orderBy(asc(events.seq))
      .limit(PAGE);
    for (const row of rows) {
      const parsed = storedEventSchema.safeParse(eventFromRow(row));
      if (parsed.success) apply(state, parsed.data);
    }
    if (rows.length < PAGE) return state;
    after = rows.at(-1)!.seq;
  }
}

function apply(state: RoomAt, event: StoredEvent): void {
  switch (event.type) {
    case "room.created":
      state.title = event.payload.title;
      state.template = event.payload.template;
      state.settings = event.payload.settings ?? null;
      state.agents = event.payload.agents;
      for (const node of event.payload.copied?.nodes ?? []) state.nodes.set(node.id, node);
      for (const edge of event.payload.copied?.edges ?? []) state.edges.set(edge.id, edge);
      for (const entry of event.payload.copied?.board ?? []) state.board.set(entry.id, entry);
      return;
    case "room.updated":
      if (event.payload.title) state.title = event.payload.title;
      if (event.payload.settings) state.settings = event.payload.settings;
      return;
    case "agent.updated": {
      const changed = event.payload.agent;
      state.agents = state.agents.map((agent) => (agent.id === changed.id ? { ...agent, ...changed } : agent));
      return;
    }
    case "agent.joined":
      if (!state.agents.some((agent) => agent.id === event.payload.agent.id)) state.agents = [...state.agents, event.payload.agent];
      return;
    case "node.created":
      state.nodes.set(event.payload.node.id, event.payload.node);
      return;
    case "node.updated": {
      const node = state.nodes.get(event.payload.nodeId);
      if (node) {
        state.nodes.set(node.id, { ...node, ...event.payload.changes, version: event.payload.version, updatedAt: event.payload.updatedAt });
      }
      return;
    }
    case "canvas.tidied":
      for (const { nodeId, x, y, version } of event.payload.positions) {
        const node = state.nodes.get(nodeId);
        if (node) state.nodes.set(nodeId, { ...node, x, y, version, updatedAt: event.payload.updatedAt });
      }
      return;
    case "node.deleted":
      state.nodes.delete(event.payload.nodeId);
      for (const edgeId of event.payload.edgeIds) state.edges.delete(edgeId);
      return;
    case "edge.created":
      state.edges.set(event.payload.edge.id, event.payload.edge);
      return;
    case "edge.updated": {
      const edge = state.edges.get(event.payload.edgeId);
      if (edge) state.edges.set(edge.id, { ...edge, label: event.payload.label });
      return;
    }
    case "edge.deleted":
      state.edges.delete(event.payload.edgeId);
      return;
    case "board.posted":
      state.board.set(event.payload.entry.id, event.payload.entry);
      return;
    case "board.request_updated": {
      const entry = state.board.get(event.payload.entryId);
      if (entry) state.board.set(entry.id, { ...entry, requestStatus: event.payload.status });
      return;
    }
    default:
      return;
  }
}
