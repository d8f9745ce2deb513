import type {
  AgentDto,
  BoardEntryDto,
  BroadcastDto,
  BroadcastResponseDto,
  CanvasEdgeDto,
  CanvasNodeDto,
  CodeNodeDto,
  RoomEvent,
  RoomSummaryDto,
  EphemeralEvent,
  EphemeralEventOf,
  EphemeralEventType,
  RemoteTaskState,
  RunDto,
  StoredEvent,
  StoredEventOf,
  StoredEventType,
} from "@/lib/protocol";
import { isStoredEvent } from "@/lib/protocol";
import { whoseTurn } from "@/lib/agents/whose-turn";
import { type FindingDto, findingToDto } from "@/lib/findings/finding-dto";
import type { BrainstormDto, BuildReviewDto, DialogueThreadDto, LimitName, RoomBudgetDto } from "@/lib/protocol";
import type { RoomSnapshot, PendingCommandDto } from "@/lib/rooms/get-room-snapshot";
import { type RoomSettings, parseRoomSettings } from "@/lib/rooms/room-settings";
import { copiedRoomState } from "@/components/timeline/copied-state";
import { clockOffset } from "./clock-offset";

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
  /** Where this seat's messages go when they name no agent; null: the agent that stepped last. */
  focusAgentId?: string | null;
  /** The seat of the room's creator: it chooses who answers the agents' questions. */
  owner?: boolean;
}

/** This page's open event stream, as the server counts it in the room's presence. */
interface StreamInfo {
  connectionId: string;
  /** The seat the stream is counted with; null while it counts a spectator. */
  seatId: string | null;
}

export type DialogueThreadState = DialogueThreadDto;

type ReviewState = BuildReviewDto;

/** Everything the room page shows, kept current by the live event stream. */
export interface RoomState {
  room: RoomSummaryDto;
  settings: RoomSettings;
  agents: AgentDto[];
  nodes: Record<string, CanvasNodeDto>;
  /** Build reviews' code nodes by node id: the code version each shows (not the node's own version), its language. */
  codeNodes: Record<string, CodeNodeDto>;
  edges: Record<string, CanvasEdgeDto>;
  feed: StoredEvent[];
  runs: Record<string, RunDto>;
  board: Record<string, BoardEntryDto>;
  /** The room's findings, oldest first. */
  findings: FindingDto[];
  /** Participants' messages waiting for their agents, by id. */
  pendingCommands: Record<string, PendingCommandDto>;
  /** Dialogues between two agents seen on this page: the opening, the messages, how it closed. */
  dialogues: Record<string, DialogueThreadState>;
  /** Build reviews seen on this page, newest last. */
  reviews: Record<string, ReviewState>;
  /** The room's latest brainstorm, where it stands. */
  brainstorm: BrainstormDto | null;
  /** Bumped when an agent's knowledge changes (updated, cleared, a run's task recorded), so an open vault drawer reads it again. */
  vaultVersions: Record<string, number>;
  broadcasts: Record<string, BroadcastDto>;
  /** Answers per broadcast id, in arrival order. */
  answers: Record<string, BroadcastResponseDto[]>;
  typing: Record<string, TypingState>;
  /** When each outside agent last called Parley (this page's clock): it shows as working for a minute after. */
  externalActiveAt: Record<string, number>;
  /** Per A2A teammate, the state of its remote task: the current call's, or the last one's. */
  remoteTasks: Record<string, RemoteTaskDto>;
  lastSeq: number;
  watching: number;
  participants: number;
  connection: ConnectionState;
  /** Known once the open stream has said so; null while connecting. */
  stream: StreamInfo | null;
  /**
   * How far the server's clock is ahead of this device's (ms; negative when behind), as the
   * latest stream said on opening: deadlines and turns are the server's times, so the page
   * counts down to them by the server's clock. 0 until a stream has said.
   */
  clockOffsetMs: number;
  deleted: boolean;
  seat: SeatInfo | null;
  /** Nodes to emphasise, e.g. those a clicked feed entry refers to. */
  highlighted: string[];
  /** Stored events this page received but could not read, and stepped over. */
  unreadableEvents: number;
  /** The personas the scheduler takes turns with, in order. */
  turnOrder: string[];
  /** When the scheduler last took its turn (ms), as the server says, also for a turn that found the room busy. */
  lastScheduledAt: number | null;
  /** When each agent's latest run was queued (ms), by agent id, over the room's whole history: whose turn is next ranks by it. */
  lastRunAt: Record<string, number>;
  /** What the room may still spend today, counted down as steps report their usage; null: no budget applies. */
  budget: RoomBudgetDto | null;
}

/** What the server renders the room from (see `getRoomSnapshot`). */
export type RoomSnapshotLike = RoomSnapshot;

export function initialRoomState(snapshot: RoomSnapshotLike, seat: SeatInfo | null): RoomState {
  const state = initialFromSnapshot(snapshot, seat);
  // Finished threads and reviews the feed still shows are rebuilt from its recent events…
  let threads: Partial<RoomState> = {};
  for (const event of snapshot.recentEvents) {
    if (event.type.startsWith("dialogue.") || event.type.startsWith("review.")) {
      const reduce = storedReducers[event.type] as (state: RoomState, event: StoredEvent) => Partial<RoomState>;
      threads = { ...threads, ...reduce({ ...state, ...threads }, event) };
    }
  }
  // …and those under way, and the latest review, come from the snapshot's tables, however long
  // ago they started: they stand as of `lastSeq`, and the live stream carries on from there.
  const current = snapshot.reviews ?? [];
  const shown = Object.values(threads.reviews ?? {}).filter((review) => !current.some((latest) => latest.id === review.id));
  return {
    ...state,
    ...threads,
    // The latest review last, as the panel reads it.
    reviews: Object.fromEntries([...shown, ...current].map((review) => [review.id, review])),
    dialogues: { ...threads.dialogues, ...Object.fromEntries((snapshot.dialogues ?? []).map((thread) => [thread.dialogue.id, thread])) },
  };
}

/** An A2A teammate's remote task as its card shows it. */
export interface RemoteTaskDto {
  taskId: string;
  state: RemoteTaskState;
  runId: string | null;
}

function remoteTaskOf(payload: StoredEventOf<"agent.remote_task">["payload"]): RemoteTaskDto {
  return { taskId: payload.taskId, state: payload.state, runId: payload.runId };
}

/** The last remote task state of each A2A teammate among a snapshot's recent events. */
function remoteTasksIn(events: StoredEvent[]): Record<string, RemoteTaskDto> {
  const tasks: Record<string, RemoteTaskDto> = {};
  for (const event of events) if (event.type === "agent.remote_task") tasks[event.payload.agentId] = remoteTaskOf(event.payload);
  return tasks;
}

function initialFromSnapshot(snapshot: RoomSnapshotLike, seat: SeatInfo | null): RoomState {
  return {
    room: snapshot.room,
    settings: snapshot.settings,
    agents: snapshot.agents,
    nodes: Object.fromEntries(snapshot.nodes.map((node) => [node.id, node])),
    codeNodes: Object.fromEntries((snapshot.codeNodes ?? []).map((code) => [code.nodeId, code])),
    edges: Object.fromEntries(snapshot.edges.map((edge) => [edge.id, edge])),
    feed: snapshot.recentEvents.slice(-FEED_LIMIT),
    runs: Object.fromEntries(snapshot.runs.map((run) => [run.id, run])),
    board: Object.fromEntries(snapshot.board.map((entry) => [entry.id, entry])),
    findings: snapshot.findings,
    pendingCommands: Object.fromEntries(snapshot.pendingCommands.map((command) => [command.id, command])),
    vaultVersions: {},
    dialogues: {},
    reviews: {},
    brainstorm: snapshot.brainstorm ?? null,
    broadcasts: Object.fromEntries(snapshot.broadcasts.map((broadcast) => [broadcast.id, broadcast])),
    answers: groupAnswers(snapshot.broadcastResponses),
    typing: {},
    externalActiveAt: {},
    remoteTasks: remoteTasksIn(snapshot.recentEvents),
    lastSeq: snapshot.lastSeq,
    watching: 0,
    participants: 0,
    connection: "connecting",
    stream: null,
    clockOffsetMs: 0,
    deleted: false,
    seat,
    highlighted: [],
    unreadableEvents: 0,
    turnOrder: snapshot.turnOrder ?? [],
    lastScheduledAt: snapshot.lastScheduledAt ? Date.parse(snapshot.lastScheduledAt) : null,
    lastRunAt: Object.fromEntries(Object.entries(snapshot.lastRunAt ?? {}).map(([agentId, at]) => [agentId, Date.parse(at)])),
    budget: snapshot.budget ?? null,
  };
}

export type ApplyOutcome =
  | { kind: "applied"; state: RoomState }
  /** Already seen (seq at or below lastSeq): ignore. */
  | { kind: "duplicate" }
  /** A sequence number was skipped: the client must resume from `lastSeq`. */
  | { kind: "gap" };

/**
 * What each stored event changes in the room state, besides the sequence number and the feed
 * that every stored event moves. One entry per event type: the compiler refuses a catalogue
 * entry without its reducer.
 */
const storedReducers: { [T in StoredEventType]: (state: RoomState, event: StoredEventOf<T>) => Partial<RoomState> } = {
  // Only a replay from the start folds a room's first event; a live page starts after it.
  "room.created": (state, { payload }) => ({
    agents: payload.agents,
    room: { ...state.room, title: payload.title },
    // Read as the server reads them: a setting added since the room was recorded has its default.
    ...(payload.settings ? { settings: parseRoomSettings(payload.settings) } : {}),
    ...copiedRoomState(payload.copied),
  }),
  "brainstorm.started": (_state, { payload }) => ({ brainstorm: payload.brainstorm }),
  "brainstorm.stage": (state, { payload }) => laterBrainstorm(state, payload.brainstorm),
  "brainstorm.submitted": (state, { payload }) => laterBrainstorm(state, payload.brainstorm),
  "brainstorm.ideas_released": () => ({}),
  "brainstorm.gate_opened": (state, { payload }) => laterBrainstorm(state, payload.brainstorm),
  "brainstorm.gate_decided": (state, { payload }) => laterBrainstorm(state, payload.brainstorm),
  "brainstorm.completed": (state, { payload }) => laterBrainstorm(state, payload.brainstorm),
  "room.updated": (state, { payload }) => ({
    room: { ...state.room, ...(payload.title ? { title: payload.title } : {}) },
    ...(payload.settings ? { settings: payload.settings as RoomSettings } : {}),
  }),
  "seat.taken": () => ({}),
  "seat.focused": (state, { payload }) =>
    state.seat?.id === payload.seatId ? { seat: { ...state.seat, focusAgentId: payload.agentId } } : {},
  "command.sent": (state, { payload: { command } }) => ({
    pendingCommands: {
      ...state.pendingCommands,
      [command.id]: {
        id: command.id,
        agentId: command.agentId,
        senderId: command.senderId,
        senderName: command.senderName,
        text: command.text,
        createdAt: command.createdAt,
      },
    },
  }),
  "command.delivered": (state, { payload }) => ({ pendingCommands: without(state.pendingCommands, payload.commandIds) }),
  "command.cancelled": (state, { payload }) => ({ pendingCommands: without(state.pendingCommands, [payload.commandId]) }),
  "help.answered": () => ({}),
  "review.started": (state, { payload: { review } }) => ({
    reviews: { ...state.reviews, [review.id]: { ...review, round: 1, version: 0, verdict: null, closed: null } },
  }),
  // What the Coder said shows in the feed; the review's round and version move with its code.
  "review.ready": () => ({}),
  "review.code": (state, { payload }) => ({
    ...updateReview(state, payload.reviewId, (review) => ({ ...review, version: payload.version })),
    codeNodes: {
      ...state.codeNodes,
      [payload.nodeId]: { nodeId: payload.nodeId, reviewId: payload.reviewId, version: payload.version, language: payload.language },
    },
  }),
  "review.verdict": (state, { payload }) =>
    updateReview(state, payload.reviewId, (review) => ({ ...review, round: payload.round, verdict: payload })),
  "review.closed": (state, { payload }) => updateReview(state, payload.reviewId, (review) => ({ ...review, closed: payload })),
  "dialogue.opened": (state, { payload: { dialogue } }) => ({
    dialogues: { ...state.dialogues, [dialogue.id]: { dialogue, messages: [], closed: null } },
  }),
  "dialogue.message": (state, event) => {
    const thread = state.dialogues[event.payload.dialogueId];
    return thread
      ? {
          dialogues: {
            ...state.dialogues,
            [thread.dialogue.id]: { ...thread, messages: [...thread.messages, { ...event.payload, at: event.timestamp }] },
          },
        }
      : {};
  },
  // Whether the asker is satisfied shows in how the dialogue closes.
  "dialogue.replied": () => ({}),
  "dialogue.closed": (state, event) => {
    const thread = state.dialogues[event.payload.dialogueId];
    return thread
      ? { dialogues: { ...state.dialogues, [thread.dialogue.id]: { ...thread, closed: { ...event.payload, at: event.timestamp } } } }
      : {};
  },
  "knowledge.updated": (state, { payload }) => bumpVault(state, payload.agentId),
  "knowledge.cleared": (state, { payload }) => bumpVault(state, payload.agentId),
  "agent.updated": (state, { payload }) => ({
    agents: state.agents.map((agent) => (agent.id === payload.agent.id ? { ...agent, ...payload.agent } : agent)),
  }),
  "agent.joined": (state, { payload }) =>
    state.agents.some((agent) => agent.id === payload.agent.id) ? {} : { agents: [...state.agents, payload.agent] },
  "agent.token_revoked": () => ({}),
  "agent.remote_task": (state, { payload }) => ({ remoteTasks: { ...state.remoteTasks, [payload.agentId]: remoteTaskOf(payload) } }),
  "admin.action": () => ({}),
  "node.created": (state, { payload }) => ({ nodes: { ...state.nodes, [payload.node.id]: payload.node } }),
  "node.updated": (state, { payload }) => {
    const current = state.nodes[payload.nodeId];
    if (!current) return {};
    const node = { ...current, ...payload.changes, version: payload.version, updatedAt: payload.updatedAt };
    return { nodes: { ...state.nodes, [current.id]: node } };
  },
  "canvas.tidied": (state, { payload }) => {
    const nodes = { ...state.nodes };
    for (const { nodeId, x, y, version } of payload.positions) {
      const current = nodes[nodeId];
      if (current) nodes[nodeId] = { ...current, x, y, version, updatedAt: payload.updatedAt };
    }
    return { nodes };
  },
  "node.deleted": (state, { payload }) => ({
    nodes: without(state.nodes, [payload.nodeId]),
    edges: without(state.edges, payload.edgeIds),
  }),
  "edge.created": (state, { payload }) => ({ edges: { ...state.edges, [payload.edge.id]: payload.edge } }),
  "edge.updated": (state, { payload }) => {
    const current = state.edges[payload.edgeId];
    return current ? { edges: { ...state.edges, [current.id]: { ...current, label: payload.label } } } : {};
  },
  "edge.deleted": (state, { payload }) => ({ edges: without(state.edges, [payload.edgeId]) }),
  "run.queued": (state, { payload: { run } }) => ({
    runs: { ...state.runs, [run.id]: run },
    lastRunAt: { ...state.lastRunAt, [run.agentId]: Math.max(state.lastRunAt[run.agentId] ?? -1, Date.parse(run.createdAt)) },
  }),
  "run.started": (state, { payload }) =>
    updateRun(state, payload.runId, (run) => ({ ...run, status: "running", attempts: payload.attempt, startedAt: payload.startedAt })),
  "run.step": (state, { payload }) => ({
    ...updateRun(state, payload.runId, (run) => ({
      ...run,
      steps: run.steps + 1,
      inputTokens: run.inputTokens + payload.inputTokens,
      outputTokens: run.outputTokens + payload.outputTokens,
      costUsd: run.costUsd + payload.costUsd,
    })),
    typing: withoutTyping(state.typing, payload.agentId),
    budget: spendBudget(state.budget, payload.inputTokens + payload.outputTokens, payload.costUsd),
  }),
  "run.retrying": () => ({}),
  // A budget a run would have gone past still has what is left; only a spent one is down to nothing.
  "limit.reached": (state, { payload }) => (payload.expected === undefined ? { budget: budgetSpent(state.budget, payload.limit) } : {}),
  "run.finished": (state, event) => {
    const { runId, agentId, status, error, steps, attempts, inputTokens, outputTokens, costUsd } = event.payload;
    return {
      ...updateRun(state, runId, (run) => ({
        ...run,
        status,
        error,
        steps,
        attempts,
        inputTokens,
        outputTokens,
        costUsd,
        finishedAt: event.timestamp,
      })),
      typing: withoutTyping(state.typing, agentId),
      // The run's task went into the agent's vault in the same write.
      ...bumpVault(state, agentId),
    };
  },
  "board.posted": (state, { payload: { entry } }) => ({
    board: { ...state.board, [entry.id]: entry },
    ...(entry.kind === "finding" ? { findings: [...state.findings, findingToDto(entry)] } : {}),
  }),
  "board.request_updated": (state, { payload }) => {
    const entry = state.board[payload.entryId];
    return entry ? { board: { ...state.board, [entry.id]: { ...entry, requestStatus: payload.status } } } : {};
  },
  "broadcast.asked": (state, { payload }) => ({
    broadcasts: { ...state.broadcasts, [payload.broadcast.id]: payload.broadcast },
  }),
  "broadcast.opened": (state, { payload }) =>
    updateBroadcast(state, payload.broadcastId, (broadcast) => ({
      ...broadcast,
      status: "open",
      deadlineAt: payload.deadlineAt,
      openedAt: payload.openedAt,
    })),
  "broadcast.response": (state, { payload: { response } }) => ({
    answers: { ...state.answers, [response.broadcastId]: [...(state.answers[response.broadcastId] ?? []), response] },
  }),
  "broadcast.retrying": () => ({}),
  "broadcast.closed": (state, { payload }) =>
    updateBroadcast(state, payload.broadcastId, (broadcast) => ({
      ...broadcast,
      status: payload.status,
      closedAt: payload.closedAt,
      ...(payload.reusedAnswer ? { reusedAnswer: payload.reusedAnswer } : {}),
    })),
};

/** What each live-only signal changes; like the stored reducers, one entry per type. */
const ephemeralReducers: {
  [T in EphemeralEventType]: (state: RoomState, event: EphemeralEventOf<T>, clock: () => number) => Partial<RoomState>;
} = {
  presence: (_state, { payload }) => ({ watching: payload.watching, participants: payload.participants }),
  "room.deleted": () => ({ deleted: true }),
  "stream.opened": (state, { payload: { connectionId, seatId, serverTime } }, clock) => ({
    stream: { connectionId, seatId },
    clockOffsetMs: serverTime ? clockOffset(serverTime, clock()) : state.clockOffsetMs,
  }),
  // Turns only move forward: a late copy (a stream's opening frame after a live one) changes nothing.
  "scheduler.turn": (state, { payload }) => ({
    lastScheduledAt: Math.max(state.lastScheduledAt ?? 0, Date.parse(payload.lastScheduledAt)),
  }),
  "agent.active": (state, { payload }, clock) => ({ externalActiveAt: { ...state.externalActiveAt, [payload.agentId]: clock() } }),
  "agent.typing": (state, { payload }, clock) => {
    const { agentId, runId, step, delta } = payload;
    const current = state.typing[agentId];
    const text = current && current.runId === runId && current.step === step ? current.text + delta : delta;
    return { typing: { ...state.typing, [agentId]: { runId, step, text: text.slice(-600), at: clock() } } };
  },
};

/**
 * Folds one live event into the room state. Stored events apply exactly once, in
 * sequence order; ephemeral ones (presence) simply overwrite what they describe.
 */
export function applyRoomEvent(state: RoomState, event: RoomEvent, clock: () => number = Date.now): ApplyOutcome {
  if (!isStoredEvent(event)) {
    const reduce = ephemeralReducers[event.type] as (state: RoomState, event: EphemeralEvent, clock: () => number) => Partial<RoomState>;
    return { kind: "applied", state: { ...state, ...reduce(state, event, clock) } };
  }
  if (event.seq <= state.lastSeq) return { kind: "duplicate" };
  if (event.seq > state.lastSeq + 1) return { kind: "gap" };
  const reduce = storedReducers[event.type] as (state: RoomState, event: StoredEvent) => Partial<RoomState>;
  return {
    kind: "applied",
    state: { ...state, ...reduce(state, event), lastSeq: event.seq, feed: appendFeed(state.feed, event) },
  };
}

/**
 * Steps over a stored event the page could not read (a newer server's event, or a damaged
 * one): its number is taken so the stream goes on, and nothing else changes. Reported by the
 * caller. Out of order it is a gap like any other.
 */
export function skipUnreadableEvent(state: RoomState, seq: number): ApplyOutcome {
  if (seq <= state.lastSeq) return { kind: "duplicate" };
  if (seq > state.lastSeq + 1) return { kind: "gap" };
  return { kind: "applied", state: { ...state, lastSeq: seq, unreadableEvents: state.unreadableEvents + 1 } };
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

/** A brainstorm's newer state, unless it is of an earlier brainstorm than the one shown. */
function laterBrainstorm(state: RoomState, brainstorm: BrainstormDto): Partial<RoomState> {
  if (state.brainstorm && state.brainstorm.id !== brainstorm.id && state.brainstorm.createdAt > brainstorm.createdAt) return {};
  return { brainstorm };
}

function updateReview(state: RoomState, reviewId: string, change: (review: ReviewState) => ReviewState): Partial<RoomState> {
  const review = state.reviews[reviewId];
  return review ? { reviews: { ...state.reviews, [reviewId]: change(review) } } : {};
}

function bumpVault(state: RoomState, agentId: string): Partial<RoomState> {
  return { vaultVersions: { ...state.vaultVersions, [agentId]: (state.vaultVersions[agentId] ?? 0) + 1 } };
}

function groupAnswers(responses: BroadcastResponseDto[]): Record<string, BroadcastResponseDto[]> {
  const grouped: Record<string, BroadcastResponseDto[]> = {};
  for (const response of responses) {
    grouped[response.broadcastId] ??= [];
    grouped[response.broadcastId]!.push(response);
  }
  return grouped;
}

function without<T>(items: Record<string, T>, ids: string[]): Record<string, T> {
  const next = { ...items };
  for (const id of ids) delete next[id];
  return next;
}

function updateRun(state: RoomState, runId: string, change: (run: RunDto) => RunDto): Partial<RoomState> {
  const run = state.runs[runId];
  return run ? { runs: { ...state.runs, [runId]: change(run) } } : {};
}

function updateBroadcast(state: RoomState, broadcastId: string, change: (broadcast: BroadcastDto) => BroadcastDto): Partial<RoomState> {
  const broadcast = state.broadcasts[broadcastId];
  return broadcast ? { broadcasts: { ...state.broadcasts, [broadcastId]: change(broadcast) } } : {};
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

/**
 * Who the scheduler starts next and when: the agent `whoseTurn` ranks first — as the scheduler
 * ranks it, from each agent's last run — one interval after the scheduler's last turn (the one
 * the server reported, which also counts a turn that found the room busy and started nobody, or
 * the last scheduled run the page saw). Null when the room's scheduler is off.
 */
export function nextTurn(
  state: Pick<RoomState, "settings" | "agents" | "runs" | "turnOrder" | "lastRunAt"> & Partial<Pick<RoomState, "lastScheduledAt">>,
): { agent: AgentDto; at: number | null } | null {
  if (!state.settings.scheduler_enabled) return null;
  const agent = whoseTurn(state.agents, state.turnOrder, state.lastRunAt);
  if (!agent) return null;
  let lastScheduled: number | null = state.lastScheduledAt ?? null;
  for (const run of Object.values(state.runs)) {
    if (run.trigger === "scheduler") lastScheduled = Math.max(lastScheduled ?? 0, Date.parse(run.createdAt));
  }
  return { agent, at: lastScheduled === null ? null : lastScheduled + state.settings.scheduler_interval_seconds * 1000 };
}

/** When the next turn comes, as the header says it at `now`: "in 12 s", "any moment" once due, "soon" before the first turn. */
export function nextTurnLabel(at: number | null, now: number): string {
  if (at === null) return "soon";
  const seconds = Math.ceil((at - now) / 1000);
  return seconds > 0 ? `in ${seconds} s` : "any moment";
}

/** Takes a step's usage off what the room has left today (the server's count is exact; this keeps the header close). */
function spendBudget(budget: RoomBudgetDto | null, tokens: number, costUsd: number): RoomBudgetDto | null {
  if (!budget) return budget;
  return {
    ...budget,
    tokensLeft: budget.tokensLeft === null ? null : Math.max(0, budget.tokensLeft - tokens),
    costLeftUsd: budget.costLeftUsd === null ? null : Math.max(0, budget.costLeftUsd - costUsd),
  };
}

/** A daily budget reported spent: nothing of it is left today. */
function budgetSpent(budget: RoomBudgetDto | null, limit: LimitName): RoomBudgetDto | null {
  if (!budget) return budget;
  if (limit.endsWith("daily_tokens")) return { ...budget, tokensLeft: 0 };
  if (limit.endsWith("daily_cost")) return { ...budget, costLeftUsd: 0 };
  return budget;
}
