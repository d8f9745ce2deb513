import type {
  AgentDto,
  BoardEntryDto,
  BroadcastDto,
  BroadcastResponseDto,
  CanvasEdgeDto,
  CanvasNodeDto,
  RoomEvent,
  RoomSummaryDto,
  RunDto,
  StoredEvent,
} from "@/lib/protocol";
import { isStoredEvent } from "@/lib/protocol";
import type { RoomSnapshot } from "@/lib/rooms/get-room-snapshot";
import type { RoomSettings } from "@/lib/rooms/room-settings";

export const FEED_LIMIT = 300;

export type ConnectionState = "connecting" | "live" | "reconnecting" | "closed";

/** What an agent is writing right now, as it streams in. */
export interface TypingState {
  runId: string;
  step: number;
  text: string;
  /** Client time of the last delta, to tell typing from thinking. */
  at: number;
}

export interface SeatInfo {
  id: string;
  displayName: string;
}

/** This page's open event stream, as the server counts it in the room's presence. */
export interface StreamInfo {
  connectionId: string;
  /** The seat the stream is counted with; null while it counts a spectator. */
  seatId: string | null;
}

/** Everything the room page shows, kept current by the live event stream. */
export interface RoomState {
  room: RoomSummaryDto;
  settings: RoomSettings;
  agents: AgentDto[];
  nodes: Record<string, CanvasNodeDto>;
  edges: Record<string, CanvasEdgeDto>;
  feed: StoredEvent[];
  runs: Record<string, RunDto>;
  board: Record<string, BoardEntryDto>;
  broadcasts: Record<string, BroadcastDto>;
  /** Answers per broadcast id, in arrival order. */
  answers: Record<string, BroadcastResponseDto[]>;
  typing: Record<string, TypingState>;
  lastSeq: number;
  watching: number;
  participants: number;
  connection: ConnectionState;
  /** Known once the open stream has said so; null while connecting. */
  stream: StreamInfo | null;
  deleted: boolean;
  seat: SeatInfo | null;
  /** Nodes to emphasise, e.g. those a clicked feed entry refers to. */
  highlighted: string[];
}

/** What the server renders the room from (see `getRoomSnapshot`). */
export type RoomSnapshotLike = RoomSnapshot;

export function initialRoomState(snapshot: RoomSnapshotLike, seat: SeatInfo | null): RoomState {
  return {
    room: snapshot.room,
    settings: snapshot.settings,
    agents: snapshot.agents,
    nodes: Object.fromEntries(snapshot.nodes.map((node) => [node.id, node])),
    edges: Object.fromEntries(snapshot.edges.map((edge) => [edge.id, edge])),
    feed: snapshot.recentEvents.slice(-FEED_LIMIT),
    runs: Object.fromEntries(snapshot.runs.map((run) => [run.id, run])),
    board: Object.fromEntries(snapshot.board.map((entry) => [entry.id, entry])),
    broadcasts: Object.fromEntries(snapshot.broadcasts.map((broadcast) => [broadcast.id, broadcast])),
    answers: groupAnswers(snapshot.broadcastResponses),
    typing: {},
    lastSeq: snapshot.lastSeq,
    watching: 0,
    participants: 0,
    connection: "connecting",
    stream: null,
    deleted: false,
    seat,
    highlighted: [],
  };
}

export type ApplyOutcome =
  | { kind: "applied"; state: RoomState }
  /** Already seen (seq at or below lastSeq): ignore. */
  | { kind: "duplicate" }
  /** A sequence number was skipped: the client must resume from `lastSeq`. */
  | { kind: "gap" };

/**
 * Folds one live event into the room state. Stored events apply exactly once, in
 * sequence order; ephemeral ones (presence) simply overwrite what they describe.
 */
export function applyRoomEvent(state: RoomState, event: RoomEvent, clock: () => number = Date.now): ApplyOutcome {
  if (!isStoredEvent(event)) {
    switch (event.type) {
      case "presence":
        return {
          kind: "applied",
          state: { ...state, watching: event.payload.watching, participants: event.payload.participants },
        };
      case "room.deleted":
        return { kind: "applied", state: { ...state, deleted: true } };
      case "stream.opened":
        return { kind: "applied", state: { ...state, stream: event.payload } };
      case "agent.typing": {
        const { agentId, runId, step, delta } = event.payload;
        const current = state.typing[agentId];
        const text = current && current.runId === runId && current.step === step ? current.text + delta : delta;
        return {
          kind: "applied",
          state: { ...state, typing: { ...state.typing, [agentId]: { runId, step, text: text.slice(-600), at: clock() } } },
        };
      }
      default:
        return { kind: "duplicate" };
    }
  }
  if (event.seq <= state.lastSeq) return { kind: "duplicate" };
  if (event.seq > state.lastSeq + 1) return { kind: "gap" };

  const next: RoomState = { ...state, lastSeq: event.seq, feed: appendFeed(state.feed, event) };
  switch (event.type) {
    case "room.created":
      next.agents = event.payload.agents;
      break;
    case "room.updated":
      next.room = { ...state.room, ...(event.payload.title ? { title: event.payload.title } : {}) };
      if (event.payload.settings) next.settings = event.payload.settings as RoomSettings;
      break;
    case "node.created":
      next.nodes = { ...state.nodes, [event.payload.node.id]: event.payload.node };
      break;
    case "node.updated": {
      const current = state.nodes[event.payload.nodeId];
      if (current) {
        next.nodes = {
          ...state.nodes,
          [current.id]: {
            ...current,
            ...event.payload.changes,
            version: event.payload.version,
            updatedAt: event.payload.updatedAt,
          },
        };
      }
      break;
    }
    case "node.deleted": {
      const nodes = { ...state.nodes };
      delete nodes[event.payload.nodeId];
      const edges = { ...state.edges };
      for (const edgeId of event.payload.edgeIds) delete edges[edgeId];
      next.nodes = nodes;
      next.edges = edges;
      break;
    }
    case "edge.created":
      next.edges = { ...state.edges, [event.payload.edge.id]: event.payload.edge };
      break;
    case "edge.updated": {
      const current = state.edges[event.payload.edgeId];
      if (current) next.edges = { ...state.edges, [current.id]: { ...current, label: event.payload.label } };
      break;
    }
    case "edge.deleted": {
      const edges = { ...state.edges };
      delete edges[event.payload.edgeId];
      next.edges = edges;
      break;
    }
    case "run.queued":
      next.runs = { ...state.runs, [event.payload.run.id]: event.payload.run };
      break;
    case "run.started": {
      const run = state.runs[event.payload.runId];
      if (run) {
        next.runs = {
          ...state.runs,
          [run.id]: { ...run, status: "running", attempts: event.payload.attempt, startedAt: event.payload.startedAt },
        };
      }
      break;
    }
    case "run.step": {
      const { runId, agentId, inputTokens, outputTokens, costUsd } = event.payload;
      const run = state.runs[runId];
      if (run) {
        next.runs = {
          ...state.runs,
          [runId]: {
            ...run,
            steps: run.steps + 1,
            inputTokens: run.inputTokens + inputTokens,
            outputTokens: run.outputTokens + outputTokens,
            costUsd: run.costUsd + costUsd,
          },
        };
      }
      next.typing = withoutTyping(state.typing, agentId);
      break;
    }
    case "run.finished": {
      const { runId, agentId, status, error, steps, attempts, inputTokens, outputTokens, costUsd } = event.payload;
      const run = state.runs[runId];
      if (run) {
        next.runs = {
          ...state.runs,
          [runId]: { ...run, status, error, steps, attempts, inputTokens, outputTokens, costUsd, finishedAt: event.timestamp },
        };
      }
      next.typing = withoutTyping(state.typing, agentId);
      break;
    }
    case "board.posted":
      next.board = { ...state.board, [event.payload.entry.id]: event.payload.entry };
      break;
    case "broadcast.asked":
      next.broadcasts = { ...state.broadcasts, [event.payload.broadcast.id]: event.payload.broadcast };
      break;
    case "broadcast.opened": {
      const broadcast = state.broadcasts[event.payload.broadcastId];
      if (broadcast) {
        next.broadcasts = {
          ...state.broadcasts,
          [broadcast.id]: { ...broadcast, status: "open", deadlineAt: event.payload.deadlineAt, openedAt: event.payload.openedAt },
        };
      }
      break;
    }
    case "broadcast.response": {
      const { response } = event.payload;
      next.answers = { ...state.answers, [response.broadcastId]: [...(state.answers[response.broadcastId] ?? []), response] };
      break;
    }
    case "broadcast.closed": {
      const broadcast = state.broadcasts[event.payload.broadcastId];
      if (broadcast) {
        next.broadcasts = {
          ...state.broadcasts,
          [broadcast.id]: { ...broadcast, status: event.payload.status, closedAt: event.payload.closedAt },
        };
      }
      break;
    }
    case "board.request_updated": {
      const entry = state.board[event.payload.entryId];
      if (entry) next.board = { ...state.board, [entry.id]: { ...entry, requestStatus: event.payload.status } };
      break;
    }
    default:
      break;
  }
  return { kind: "applied", state: next };
}

/**
 * The seat this page holds and its open stream does not count yet (the seat was taken after
 * the stream opened), with the stream's connection: the server must be told, or the room's
 * participant count stays short until the stream reconnects. Null when nothing is missing.
 */
export function uncountedSeat(state: RoomState): { connectionId: string; seatId: string } | null {
  if (!state.seat || !state.stream || state.stream.seatId === state.seat.id) return null;
  return { connectionId: state.stream.connectionId, seatId: state.seat.id };
}

function groupAnswers(responses: BroadcastResponseDto[]): Record<string, BroadcastResponseDto[]> {
  const grouped: Record<string, BroadcastResponseDto[]> = {};
  for (const response of responses) (grouped[response.broadcastId] ??= []).push(response);
  return grouped;
}

function withoutTyping(typing: Record<string, TypingState>, agentId: string): Record<string, TypingState> {
  if (!typing[agentId]) return typing;
  const next = { ...typing };
  delete next[agentId];
  return next;
}

function appendFeed(feed: StoredEvent[], event: StoredEvent): StoredEvent[] {
  const next = feed.length >= FEED_LIMIT ? feed.slice(feed.length - FEED_LIMIT + 1) : feed.slice();
  next.push(event);
  return next;
}
