// Typed builders for the protocol's DTOs and events, for tests. Each one is parsed by the
// schema it claims to follow, so a fixture can never drift from what the server sends; the
// rows at the end are typed by their tables.
import type { Agent, Run, Seat } from "@/db/schema";
import type { RoomSnapshot } from "@/lib/rooms/get-room-snapshot";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import {
  type AgentDto,
  type BoardEntryDto,
  type BroadcastDto,
  type BroadcastResponseDto,
  type CanvasEdgeDto,
  type CanvasNodeDto,
  type DialogueDto,
  type PayloadOf,
  type RunDto,
  type StoredEventOf,
  type StoredEventType,
  agentSchema,
  boardEntrySchema,
  broadcastResponseSchema,
  broadcastSchema,
  canvasEdgeSchema,
  canvasNodeSchema,
  dialogueSchema,
  runSchema,
  storedEventSchemas,
} from "@/lib/protocol";
import {
  type BrainstormDto,
  type RankedCandidateDto,
  STAGE_KEYS,
  brainstormSchema,
  rankedCandidateSchema,
} from "@/lib/protocol/brainstorm";

/** The time every fixture carries unless told otherwise. */
export const FIXTURE_TIME = "2026-11-22T10:00:00.000Z";

export function nodeDto(overrides: Partial<CanvasNodeDto> = {}): CanvasNodeDto {
  return canvasNodeSchema.parse({
    id: "n1",
    kind: "note",
    text: "Rain",
    x: 0,
    y: 0,
    width: null,
    height: null,
    color: null,
    authorKind: "human",
    authorId: "human:s1",
    authorName: "Ada",
    version: 1,
    createdAt: FIXTURE_TIME,
    updatedAt: FIXTURE_TIME,
    ...overrides,
  });
}

export function edgeDto(overrides: Partial<CanvasEdgeDto> = {}): CanvasEdgeDto {
  return canvasEdgeSchema.parse({
    id: "e1",
    sourceId: "n1",
    targetId: "n2",
    label: "",
    authorKind: "human",
    authorId: "human:s1",
    authorName: "Ada",
    createdAt: FIXTURE_TIME,
    ...overrides,
  });
}

export function agentDto(overrides: Partial<AgentDto> = {}): AgentDto {
  return agentSchema.parse({
    id: "a1",
    persona: "songwriter",
    name: "Songwriter",
    role: "Lyricist",
    description: "Writes verses.",
    color: "#d6336c",
    model: "script:songwriter",
    position: 0,
    unavailableReason: null,
    ...overrides,
  });
}

/** What a queued run's row and its DTO have in common. */
const queuedRun = () =>
  ({
    id: "run1",
    agentId: "a1",
    status: "queued",
    trigger: "human",
    requestedBy: "human:s1",
    prompt: "Write about rain",
    parentRunId: null,
    causeEventId: null,
    chainDepth: 0,
    correlationId: "c1",
    selectedNodeIds: [],
    requestEntryId: null,
    attempts: 0,
    steps: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    error: null,
    startedAt: null,
    finishedAt: null,
  }) satisfies Partial<Run> & Partial<RunDto>;

export function runDto(overrides: Partial<RunDto> = {}): RunDto {
  return runSchema.parse({
    ...queuedRun(),
    createdAt: FIXTURE_TIME,
    ...overrides,
  });
}

export function boardEntryDto(overrides: Partial<BoardEntryDto> = {}): BoardEntryDto {
  return boardEntrySchema.parse({
    id: "b1",
    runId: null,
    agentId: "a1",
    agentName: "Songwriter",
    kind: "intention",
    content: { plan: "Write a verse" },
    targetPersona: null,
    requestStatus: null,
    answersEntryId: null,
    expiresAt: FIXTURE_TIME,
    createdAt: FIXTURE_TIME,
    ...overrides,
  });
}

export function rankedCandidateDto(overrides: Partial<RankedCandidateDto> = {}): RankedCandidateDto {
  return rankedCandidateSchema.parse({
    id: "c1",
    title: "Car-free Sundays",
    summary: "Close the centre to cars on Sundays.",
    score: 8,
    standing: "checked",
    ...overrides,
  });
}

/** A brainstorm at its gate, every stage before it done. */
export function brainstormDto(overrides: Partial<BrainstormDto> = {}): BrainstormDto {
  const stage = {
    status: "done",
    passes: 1,
    rerun: false,
    startedAt: FIXTURE_TIME,
    endedAt: FIXTURE_TIME,
    count: 1,
    total: 1,
    shortfall: null,
    timedOut: false,
  };
  return brainstormSchema.parse({
    id: "bs1",
    problem: "Fewer cars in town",
    correlationId: "corr-bs1",
    status: "awaiting_gate",
    stages: Object.fromEntries(STAGE_KEYS.map((key) => [key, stage])),
    gateRound: 1,
    gateOpenedAt: FIXTURE_TIME,
    ranking: [rankedCandidateDto()],
    decisions: [],
    chosenCandidateId: null,
    gateDeciders: "participants",
    hasDeliverable: false,
    createdAt: FIXTURE_TIME,
    finishedAt: null,
    ...overrides,
  });
}

export function broadcastDto(overrides: Partial<BroadcastDto> = {}): BroadcastDto {
  return broadcastSchema.parse({
    id: "q1",
    agentId: "a1",
    agentName: "Songwriter",
    runId: "run1",
    mode: "human",
    question: "Rain or sun?",
    targetAgentIds: [],
    options: [],
    status: "waiting_turn",
    deadlineAt: null,
    createdAt: FIXTURE_TIME,
    openedAt: null,
    closedAt: null,
    ...overrides,
  });
}

export function dialogueDto(overrides: Partial<DialogueDto> = {}): DialogueDto {
  return dialogueSchema.parse({
    id: "d1",
    askerAgentId: "a1",
    addresseeAgentId: "a2",
    topic: "Rain or sun?",
    reason: "question",
    maxRounds: 2,
    reviewId: null,
    openedAt: FIXTURE_TIME,
    ...overrides,
  });
}

export function broadcastResponseDto(overrides: Partial<BroadcastResponseDto> = {}): BroadcastResponseDto {
  return broadcastResponseSchema.parse({
    id: "r1",
    broadcastId: "q1",
    responderId: "human:s1",
    responderName: "Ada",
    isHuman: true,
    content: "Rain",
    durationMs: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    createdAt: FIXTURE_TIME,
    ...overrides,
  });
}

type EnvelopeOverrides = Partial<Omit<StoredEventOf<"seat.taken">, "type" | "payload">>;

/** A stored event of `type` with `payload`, as the server sends it: parsed by the catalogue's schema. */
export function storedEvent<T extends StoredEventType>(
  type: T,
  payload: PayloadOf<T>,
  overrides: EnvelopeOverrides = {},
): StoredEventOf<T> {
  const seq = overrides.seq ?? 1;
  return storedEventSchemas[type].parse({
    id: `e${seq}`,
    room_id: "r",
    seq,
    correlation_id: "c",
    agent: "human:s1",
    agent_name: "Ada",
    target_agent: null,
    timestamp: FIXTURE_TIME,
    status: "success",
    next_steps: [],
    error_details: null,
    ...overrides,
    type,
    payload,
  }) as StoredEventOf<T>;
}

/** An empty room's snapshot (a Creative canvas at sequence 1), with `overrides`. */
export function roomSnapshot(overrides: Partial<RoomSnapshot> = {}): RoomSnapshot {
  const lastSeq = overrides.lastSeq ?? 1;
  return {
    room: { id: "r", title: "T", template: "creative-canvas", lastSeq, createdAt: FIXTURE_TIME, lastActivityAt: FIXTURE_TIME },
    settings: DEFAULT_ROOM_SETTINGS,
    agents: [],
    turnOrder: [],
    lastScheduledAt: null,
    lastRunAt: {},
    nodes: [],
    edges: [],
    runs: [],
    board: [],
    findings: [],
    pendingCommands: [],
    broadcasts: [],
    broadcastResponses: [],
    brainstorm: null,
    recentEvents: [],
    lastSeq,
    ...overrides,
  };
}

/** A seat's row, as the database holds it. */
export function seatRow(overrides: Partial<Seat> = {}): Seat {
  return {
    id: "s1",
    roomId: "r",
    displayName: "Ada",
    tokenHash: "hash",
    focusAgentId: null,
    createdAt: new Date(FIXTURE_TIME),
    ...overrides,
  };
}

/** An agent's row, as the database holds it. */
export function agentRow(overrides: Partial<Agent> = {}): Agent {
  const persona = overrides.persona ?? "songwriter";
  return {
    id: "a1",
    roomId: "r",
    persona,
    name: "Songwriter",
    role: "Lyricist",
    description: "Writes verses.",
    color: "#d6336c",
    model: `script:${persona}`,
    identity: `creative-canvas/${persona}`,
    systemPrompt: "",
    modelOptions: {},
    position: 0,
    createdAt: new Date(FIXTURE_TIME),
    ...overrides,
  };
}

/** A queued run's row, as the database holds it. */
export function runRow(overrides: Partial<Run> = {}): Run {
  return {
    ...queuedRun(),
    roomId: "r",
    purpose: null,
    taskData: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    cancelRequested: false,
    transcript: [],
    opening: null,
    streamingText: "",
    createdAt: new Date(FIXTURE_TIME),
    ...overrides,
  };
}
