import { z } from "zod";
import { boardEntrySchema, requestStatusSchema } from "./board";
import { broadcastResponseSchema, broadcastSchema, reusedAnswerSchema } from "./broadcasts";
import { agentSchema, canvasEdgeSchema, canvasNodeSchema } from "./entities";
import { limitReachedPayloadSchema, runFinishedPayloadSchema, runSchema, runStepPayloadSchema } from "./runs";
import { envelopeSchema, errorDetailsSchema, storedFieldsSchema } from "./envelope";
import { commandSchema } from "./team";
import { brainstormSchema, gateDecisionSchema, rankedCandidateSchema, stageKeySchema, stageStatusSchema } from "./brainstorm";
import { dialogueMessageSchema, dialogueOutcomeSchema, dialogueSchema, reviewIssueSchema, reviewOutcomeSchema } from "./reviews";

const base = envelopeSchema.extend(storedFieldsSchema.shape);

function storedEvent<TType extends string, TPayload extends z.ZodType<Record<string, unknown>>>(type: TType, payload: TPayload) {
  return base.extend({ type: z.literal(type), payload });
}

const forkOriginSchema = z.object({ roomId: z.string(), title: z.string(), seq: z.number().int().positive(), at: z.string() });

const forkCopySchema = z.object({ nodes: z.array(canvasNodeSchema), edges: z.array(canvasEdgeSchema), board: z.array(boardEntrySchema) });
export type ForkCopy = z.infer<typeof forkCopySchema>;

const nodeChangesSchema = canvasNodeSchema
  .pick({ text: true, x: true, y: true, width: true, height: true, color: true, kind: true })
  .partial();

/** The catalogue of stored event types: one entry per thing that can happen in a room. */
/** The states of an A2A task, as the protocol names them. */
const REMOTE_TASK_STATES = [
  "submitted",
  "working",
  "input-required",
  "auth-required",
  "completed",
  "failed",
  "canceled",
  "rejected",
  "unknown",
] as const;
export type RemoteTaskState = (typeof REMOTE_TASK_STATES)[number];

export const storedEventSchemas = {
  "room.created": storedEvent(
    "room.created",
    z.object({
      title: z.string(),
      template: z.string(),
      agents: z.array(agentSchema),
      /** The room's settings as it started (absent from rooms made before they were recorded here). */
      settings: z.record(z.string(), z.unknown()).optional(),
      /** A room continued from a moment of another: that room and the event it continues after. */
      forkedFrom: forkOriginSchema.optional(),
      /** What a continued room starts with: the origin's notes, links and board as they were at that moment. */
      copied: forkCopySchema.optional(),
    }),
  ),
  "room.updated": storedEvent(
    "room.updated",
    z.object({ title: z.string().optional(), settings: z.record(z.string(), z.unknown()).optional() }),
  ),
  "seat.taken": storedEvent("seat.taken", z.object({ seatId: z.string(), displayName: z.string() })),
  /** Where a seat's messages go when they name no agent; null: whichever agent stepped last. */
  "seat.focused": storedEvent("seat.focused", z.object({ seatId: z.string(), agentId: z.string().nullable() })),
  "command.sent": storedEvent("command.sent", z.object({ command: commandSchema })),
  /** Messages shown to their agent in a model call: the run and the step that first read them. */
  "command.delivered": storedEvent(
    "command.delivered",
    z.object({ commandIds: z.array(z.string()).min(1), agentId: z.string(), runId: z.string(), step: z.number().int() }),
  ),
  "command.cancelled": storedEvent("command.cancelled", z.object({ commandId: z.string(), agentId: z.string() })),
  /** A help request's helper finished: its answer, or why it could not answer, is on its way to the asker. */
  "help.answered": storedEvent(
    "help.answered",
    z.object({
      requestEntryId: z.string(),
      askerAgentId: z.string(),
      helperAgentId: z.string(),
      answered: z.boolean(),
      text: z.string(),
    }),
  ),
  "knowledge.updated": storedEvent(
    "knowledge.updated",
    z.object({
      agentId: z.string(),
      identity: z.string(),
      insight: z.string().nullable(),
      area: z.string().nullable(),
      /** The area's expertise after the update. */
      level: z.number().int().nullable(),
    }),
  ),
  "review.started": storedEvent(
    "review.started",
    z.object({ review: z.object({ id: z.string(), task: z.string(), maxRounds: z.number().int() }) }),
  ),
  /** The Coder read the brief and is ready to write the code: what it said (it asked instead when a dialogue opened). */
  "review.ready": storedEvent("review.ready", z.object({ reviewId: z.string(), text: z.string() })),
  /** A new version of the code under review, and the code itself (events written before it carried the code lack it). */
  "review.code": storedEvent(
    "review.code",
    z.object({
      reviewId: z.string(),
      nodeId: z.string(),
      version: z.number().int().positive(),
      language: z.string(),
      code: z.string().optional(),
    }),
  ),
  "review.verdict": storedEvent(
    "review.verdict",
    z.object({
      reviewId: z.string(),
      round: z.number().int().positive(),
      version: z.number().int().nonnegative(),
      verdict: z.enum(["approve", "changes"]),
      issues: z.array(reviewIssueSchema),
      openQuestions: z.array(z.string()),
    }),
  ),
  "review.closed": storedEvent(
    "review.closed",
    z.object({
      reviewId: z.string(),
      outcome: reviewOutcomeSchema,
      rounds: z.number().int().nonnegative(),
      remainingIssues: z.array(reviewIssueSchema),
      reason: z.string(),
    }),
  ),
  "brainstorm.started": storedEvent("brainstorm.started", z.object({ brainstorm: brainstormSchema })),
  /** A brainstorm stage started, was run again for a shortfall, or ended (done, short, skipped). */
  "brainstorm.stage": storedEvent(
    "brainstorm.stage",
    z.object({
      brainstormId: z.string(),
      stage: stageKeySchema,
      status: stageStatusSchema,
      pass: z.number().int().nonnegative(),
      rerun: z.boolean(),
      count: z.number().int().nullable(),
      shortfall: z.string().nullable(),
      brainstorm: brainstormSchema,
    }),
  ),
  /** An agent submitted its part of a stage's artifact (ideas, candidates, checks, …). */
  "brainstorm.submitted": storedEvent(
    "brainstorm.submitted",
    z.object({
      brainstormId: z.string(),
      stage: stageKeySchema,
      agentId: z.string(),
      /** What it submitted, as the feed says it: "6 ideas", "the proposal". */
      summary: z.string(),
      nodeIds: z.array(z.string()),
      brainstorm: brainstormSchema,
    }),
  ),
  /** Divergent thinking ended: every ideator's ideas, until now each one's alone, are released at once. */
  "brainstorm.ideas_released": storedEvent(
    "brainstorm.ideas_released",
    z.object({
      brainstormId: z.string(),
      ideas: z.array(z.object({ id: z.string(), title: z.string(), agentName: z.string(), nodeId: z.string().nullable() })),
    }),
  ),
  "brainstorm.gate_opened": storedEvent(
    "brainstorm.gate_opened",
    z.object({
      brainstormId: z.string(),
      round: z.number().int().positive(),
      ranking: z.array(rankedCandidateSchema),
      brainstorm: brainstormSchema,
    }),
  ),
  "brainstorm.gate_decided": storedEvent(
    "brainstorm.gate_decided",
    z.object({ brainstormId: z.string(), decision: gateDecisionSchema, brainstorm: brainstormSchema }),
  ),
  "brainstorm.completed": storedEvent(
    "brainstorm.completed",
    z.object({ brainstormId: z.string(), outcome: z.enum(["complete", "cancelled"]), brainstorm: brainstormSchema }),
  ),
  "dialogue.opened": storedEvent("dialogue.opened", z.object({ dialogue: dialogueSchema })),
  "dialogue.message": storedEvent("dialogue.message", dialogueMessageSchema),
  /** The asker said whether the answer settles its question (reply_in_dialogue), and what remains if not. */
  "dialogue.replied": storedEvent(
    "dialogue.replied",
    z.object({ dialogueId: z.string(), satisfied: z.boolean(), remaining: z.string().nullable() }),
  ),
  "dialogue.closed": storedEvent(
    "dialogue.closed",
    z.object({
      dialogueId: z.string(),
      outcome: dialogueOutcomeSchema,
      rounds: z.number().int().nonnegative(),
      remaining: z.string().nullable(),
      durationMs: z.number().nonnegative(),
      inputTokens: z.number().nonnegative(),
      outputTokens: z.number().nonnegative(),
      costUsd: z.number().nonnegative(),
      costKnown: z.boolean(),
    }),
  ),
  "knowledge.cleared": storedEvent("knowledge.cleared", z.object({ agentId: z.string(), identity: z.string() })),
  /** An admin changed an agent's model or system prompt; `agent` is the agent as it is now. */
  "agent.updated": storedEvent(
    "agent.updated",
    z.object({
      agent: agentSchema,
      changed: z.array(z.enum(["model", "systemPrompt"])).min(1),
      previousModel: z.string(),
    }),
  ),
  /**
   * An agent from another system joined the room as a teammate (a person or an admin invited it):
   * `agent` is its place in the roster; its own client holds the token that acts as it.
   */
  "agent.joined": storedEvent(
    "agent.joined",
    z.object({ agent: agentSchema, protocol: z.enum(["mcp"]), tokenId: z.string(), expiresAt: z.string() }),
  ),
  /** An outside agent's token was revoked: it can no longer read or write the room (its work stays). */
  "agent.token_revoked": storedEvent("agent.token_revoked", z.object({ agentId: z.string(), tokenId: z.string() })),
  /**
   * The state of the task an A2A teammate's remote agent is working on for it, as its system
   * reports it: sent at each change while a call is under way, the last one staying on its card.
   */
  "agent.remote_task": storedEvent(
    "agent.remote_task",
    z.object({ agentId: z.string(), runId: z.string().nullable(), taskId: z.string(), state: z.enum(REMOTE_TASK_STATES) }),
  ),
  /** An admin acted on a run from the dashboard: stopped it, or queued a new run in place of a failed one. */
  "admin.action": storedEvent(
    "admin.action",
    z.object({
      action: z.enum(["run.cancelled", "run.retried"]),
      runId: z.string(),
      agentId: z.string(),
      /** The run queued in its place (a retry). */
      newRunId: z.string().nullable(),
      summary: z.string(),
    }),
  ),
  "node.created": storedEvent("node.created", z.object({ node: canvasNodeSchema })),
  "node.updated": storedEvent(
    "node.updated",
    z.object({ nodeId: z.string(), changes: nodeChangesSchema, version: z.number().int(), updatedAt: z.string() }),
  ),
  "canvas.tidied": storedEvent(
    "canvas.tidied",
    z.object({
      positions: z.array(z.object({ nodeId: z.string(), x: z.number(), y: z.number(), version: z.number().int() })),
      updatedAt: z.string(),
    }),
  ),
  "node.deleted": storedEvent("node.deleted", z.object({ nodeId: z.string(), edgeIds: z.array(z.string()) })),
  "edge.created": storedEvent("edge.created", z.object({ edge: canvasEdgeSchema })),
  "edge.updated": storedEvent("edge.updated", z.object({ edgeId: z.string(), label: z.string() })),
  "edge.deleted": storedEvent("edge.deleted", z.object({ edgeId: z.string() })),
  "run.queued": storedEvent("run.queued", z.object({ run: runSchema })),
  "run.started": storedEvent(
    "run.started",
    z.object({ runId: z.string(), agentId: z.string(), attempt: z.number().int(), startedAt: z.string() }),
  ),
  "run.step": storedEvent("run.step", runStepPayloadSchema),
  /** A model call failed for a passing reason and is made again after `delayMs`. */
  "run.retrying": storedEvent(
    "run.retrying",
    z.object({
      runId: z.string(),
      agentId: z.string(),
      step: z.number().int(),
      retry: z.number().int().positive(),
      of: z.number().int().positive(),
      delayMs: z.number().int().nonnegative(),
      error: errorDetailsSchema,
    }),
  ),
  "run.finished": storedEvent("run.finished", runFinishedPayloadSchema),
  /** A budget, a cost cap or a loop guard stopped an agent (its run is not started, or stops at its next step). */
  "limit.reached": storedEvent("limit.reached", limitReachedPayloadSchema),
  "board.posted": storedEvent("board.posted", z.object({ entry: boardEntrySchema })),
  "board.request_updated": storedEvent(
    "board.request_updated",
    z.object({ entryId: z.string(), status: requestStatusSchema, runId: z.string().nullable() }),
  ),
  "broadcast.asked": storedEvent("broadcast.asked", z.object({ broadcast: broadcastSchema })),
  "broadcast.opened": storedEvent("broadcast.opened", z.object({ broadcastId: z.string(), deadlineAt: z.string(), openedAt: z.string() })),
  "broadcast.response": storedEvent("broadcast.response", z.object({ response: broadcastResponseSchema })),
  /** A shadow's model call failed for a passing reason and is made again after `delayMs`. */
  "broadcast.retrying": storedEvent(
    "broadcast.retrying",
    z.object({
      broadcastId: z.string(),
      responderId: z.string(),
      retry: z.number().int().positive(),
      of: z.number().int().positive(),
      delayMs: z.number().int().nonnegative(),
      error: errorDetailsSchema,
    }),
  ),
  "broadcast.closed": storedEvent(
    "broadcast.closed",
    z.object({
      broadcastId: z.string(),
      status: z.enum(["complete", "timeout", "deferred", "reused", "skipped", "cancelled"]),
      responses: z.number().int(),
      durationMs: z.number(),
      closedAt: z.string(),
      /** The earlier answer given instead, when the status is `reused`. */
      reusedAnswer: reusedAnswerSchema.optional(),
    }),
  ),
} as const;

export type StoredEventType = keyof typeof storedEventSchemas;
export const storedEventTypes = Object.keys(storedEventSchemas) as StoredEventType[];

const storedEventList = Object.values(storedEventSchemas) as unknown as [
  (typeof storedEventSchemas)[StoredEventType],
  ...(typeof storedEventSchemas)[StoredEventType][],
];
export const storedEventSchema = z.discriminatedUnion("type", storedEventList);
export type StoredEvent = z.infer<typeof storedEventSchema>;
export type StoredEventOf<T extends StoredEventType> = z.infer<(typeof storedEventSchemas)[T]>;
export type PayloadOf<T extends StoredEventType> = StoredEventOf<T>["payload"];

/**
 * Signals that are delivered live but never stored and carry no sequence number:
 * a reconnecting client does not need them replayed.
 */
const ephemeralEventSchemas = {
  presence: z.object({
    type: z.literal("presence"),
    room_id: z.string(),
    payload: z.object({ watching: z.number().int().nonnegative(), participants: z.number().int().nonnegative() }),
  }),
  "room.deleted": z.object({ type: z.literal("room.deleted"), room_id: z.string(), payload: z.object({}) }),
  /**
   * The first thing one stream sends its page, once it is counted: the connection's id and
   * the seat it is counted with. A page whose seat the stream does not count (the seat was
   * taken after the stream opened) gives this id to `POST /api/rooms/:roomId/presence`.
   * `serverTime` is the server's clock as it sent the frame: the page counts down to the
   * server's deadlines by it, whatever the device's own clock says (absent from servers that
   * predate it, whose pages count by the device's clock).
   */
  "stream.opened": z.object({
    type: z.literal("stream.opened"),
    room_id: z.string(),
    payload: z.object({ connectionId: z.string(), seatId: z.string().nullable(), serverTime: z.string().optional() }),
  }),
  /**
   * When the room's scheduler last took its turn, whether it started an agent or found the room
   * busy and passed: its next turn is one interval later. Sent as the turn is taken and when a
   * stream opens.
   */
  "scheduler.turn": z.object({
    type: z.literal("scheduler.turn"),
    room_id: z.string(),
    payload: z.object({ lastScheduledAt: z.string() }),
  }),
  /** An outside agent called Parley (read or wrote the room): it shows as working for a minute after. */
  "agent.active": z.object({
    type: z.literal("agent.active"),
    room_id: z.string(),
    payload: z.object({ agentId: z.string(), at: z.string() }),
  }),
  /** Text an agent is streaming right now; a batch of deltas, in order per run. */
  "agent.typing": z.object({
    type: z.literal("agent.typing"),
    room_id: z.string(),
    payload: z.object({ runId: z.string(), agentId: z.string(), step: z.number().int(), delta: z.string() }),
  }),
} as const;

export type EphemeralEventType = keyof typeof ephemeralEventSchemas;
const ephemeralEventList = Object.values(ephemeralEventSchemas) as unknown as [
  (typeof ephemeralEventSchemas)[EphemeralEventType],
  ...(typeof ephemeralEventSchemas)[EphemeralEventType][],
];
export const ephemeralEventSchema = z.discriminatedUnion("type", ephemeralEventList);
export type EphemeralEvent = z.infer<typeof ephemeralEventSchema>;
export type EphemeralEventOf<T extends EphemeralEventType> = z.infer<(typeof ephemeralEventSchemas)[T]>;

export type RoomEvent = StoredEvent | EphemeralEvent;

const roomEventSchema = z.discriminatedUnion("type", [...storedEventList, ...ephemeralEventList]);

export type ParsedRoomEvent =
  | { ok: true; event: RoomEvent }
  /** `seq` when the message carried one: a stored event that cannot be read still has its place. */
  | ({ ok: false } & UnreadableEvent);

/**
 * Reads one message of a room's event stream with the catalogue's own schemas, so a page
 * never folds an event it does not understand (one from a newer server, or damaged) into
 * its state. What was wrong is described for the report.
 */
export function parseRoomEvent(data: string): ParsedRoomEvent {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return { ok: false, seq: null, problem: "not JSON" };
  }
  const parsed = roomEventSchema.safeParse(value);
  if (parsed.success) return { ok: true, event: parsed.data };
  return { ok: false, ...unreadable(value, parsed.error) };
}

/** An event a page could not read: its number when it carried one, and what was wrong with it. */
export interface UnreadableEvent {
  seq: number | null;
  problem: string;
}

/** What was wrong with `value`, which the catalogue's schema refused with `error`. */
function unreadable(value: unknown, error: z.ZodError): UnreadableEvent {
  const seq = (value as { seq?: unknown } | null)?.seq;
  const type = (value as { type?: unknown } | null)?.type;
  const where = error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "event"}: ${issue.message}`)
    .join("; ");
  return {
    seq: typeof seq === "number" && Number.isInteger(seq) && seq > 0 ? seq : null,
    problem: `${typeof type === "string" ? type : "event"} (${where})`,
  };
}

/**
 * Reads a list of stored events a page fetched (an event log, a workflow's messages) with the
 * catalogue's schema, as the live stream reads each of its messages: those it accepts, in
 * order, and what was wrong with each of the others, which the page drops and reports.
 */
export function parseStoredEvents(values: unknown): { events: StoredEvent[]; unreadable: UnreadableEvent[] } {
  if (!Array.isArray(values)) return { events: [], unreadable: [{ seq: null, problem: "not a list of events" }] };
  const events: StoredEvent[] = [];
  const refused: UnreadableEvent[] = [];
  for (const value of values) {
    const parsed = storedEventSchema.safeParse(value);
    if (parsed.success) events.push(parsed.data);
    else refused.push(unreadable(value, parsed.error));
  }
  return { events, unreadable: refused };
}

export function isStoredEvent(event: RoomEvent): event is StoredEvent {
  return "seq" in event;
}
