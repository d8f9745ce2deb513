import { randomUUID } from "node:crypto";
import { and, asc, count, eq, inArray, ne } from "drizzle-orm";
import type { Database } from "@/db";
import { type Agent, type Broadcast, type BroadcastStatus, agents, broadcastResponses, broadcasts, rooms } from "@/db/schema";
import { badRequest } from "@/lib/errors";
import { type CarriedChanges, eventPayload, writeRoomEvents, type WriteWork } from "@/lib/events/write-room-events";
import type { ResolvedModel } from "@/lib/models/registry";
import type { HumanQa } from "@/lib/protocol";
import type { RoomBus } from "@/lib/realtime/bus";
import { type RoomSettings, parseRoomSettings } from "@/lib/rooms/room-settings";
import { leaveNote, shadowNote } from "./agent-notes";
import { broadcastToDto, responseToDto } from "./broadcast-dto";
import { ACTIVE_STATUSES, type BroadcastOutcome, closeBroadcast } from "./close-broadcast";
import { expireOverdueBroadcasts } from "./end-orphaned-broadcasts";
import { HUMAN_QA_NOTE, hasUnseenAnswers, humanQaHistory, markAnswersSeen } from "./human-qa";
import { respondAsShadow } from "./respond-as-shadow";

export interface AskOthersDeps {
  database: Database;
  bus: RoomBus;
  resolveModel: (spec: string) => ResolvedModel;
  /** Fallback poll while waiting for a person (notifications wake it sooner). */
  pollMs?: number;
}

export interface AskOthersInput {
  roomId: string;
  asker: Agent;
  runId: string | null;
  correlationId: string;
  question: string;
  /** Names, personas or ids of the agents to ask; everyone else when omitted. */
  targetAgents?: string[];
  /** Answer choices shown to people as buttons. */
  options?: string[];
  /**
   * Names the call (for a tool call: its run, step and arguments). A call made again under the
   * same key asks nothing new: it carries on with the question the first one asked.
   */
  idempotencyKey?: string;
  /** Changes the asking run's first write carries (its model calls not yet written). */
  carry?: CarriedChanges;
  /**
   * Aborted when the asker stops waiting. A question of a run is then left to the run: an
   * attempt that takes the run over carries on with it, and the run's end cancels it.
   */
  signal?: AbortSignal;
}

export interface BroadcastAnswer {
  responder_id: string;
  responder_name: string;
  content: string;
  is_human: boolean;
}

/** What ask_others returns to the asking agent (the seed's shape). */
export type AskOthersResult =
  | { status: "complete" | "timeout" | "skipped" | "cancelled"; responses: BroadcastAnswer[] }
  | { status: "deferred"; responses: []; human_qa_history: HumanQa[]; human_qa_note: string };

function actorOf(agent: Pick<Agent, "id" | "name">) {
  return { id: agent.id, name: agent.name };
}

/**
 * ask_others (seed 000). In agents mode every target answers through a parallel shadow
 * responder and the call returns when all have answered or `broadcast_timeout` passes,
 * whichever comes first. In human mode the question goes to the people in the room, one
 * question at a time per room; an agent that has not yet seen earlier answers gets them
 * back (`deferred`) instead of prompting again.
 *
 * With an idempotency key the question is asked once: the same call made again (its step
 * is taken again after its worker died) finds it and carries on with it, see `carryOn`.
 */
export async function askOthers(deps: AskOthersDeps, input: AskOthersInput): Promise<AskOthersResult> {
  const db = deps.database.db;
  const [room] = await db.select().from(rooms).where(eq(rooms.id, input.roomId));
  if (!room) throw badRequest("The room no longer exists.");
  const settings = parseRoomSettings(room.settings);
  if (settings.broadcast === "off") throw badRequest("Broadcasts are turned off in this room.");

  const team = await db.select().from(agents).where(eq(agents.roomId, input.roomId));
  const targets = settings.broadcast === "agents" ? pickTargets(team, input.asker, input.targetAgents) : [];
  const mode = settings.broadcast;

  const fileQuestion: WriteWork<Broadcast> = async (tx, emit, at) => {
    const [active] = await tx
      .select({ value: count() })
      .from(broadcasts)
      .where(and(eq(broadcasts.agentId, input.asker.id), inArray(broadcasts.status, ACTIVE_STATUSES)));
    if (Number(active?.value ?? 0) >= settings.max_broadcasts_per_agent) {
      throw badRequest(
        `You already have ${active?.value} active broadcasts; the limit is ${settings.max_broadcasts_per_agent}. ` +
          "Wait for their answers before asking again.",
      );
    }
    const [row] = await tx
      .insert(broadcasts)
      .values({
        id: randomUUID(),
        roomId: input.roomId,
        runId: input.runId,
        agentId: input.asker.id,
        agentName: input.asker.name,
        mode,
        question: input.question,
        targetAgentIds: targets.map((agent) => agent.id),
        options: input.options ?? [],
        status: mode === "agents" ? "pending" : "waiting_turn",
        correlationId: input.correlationId,
        // In human mode too: the wait for a turn counts, so the whole call ends by then.
        deadlineAt: new Date(at.getTime() + settings.broadcast_timeout * 1000),
        createdAt: at,
      })
      .returning();
    emit({
      type: "broadcast.asked",
      actor: actorOf(input.asker),
      correlationId: input.correlationId,
      status: "pending",
      targetAgent: mode === "human" ? "human" : null,
      payload: { broadcast: broadcastToDto(row!) },
    });
    return row!;
  };
  // A call made again finds the question filed under its key the first time, under the room
  // lock (so also while that call is still filing it), and files nothing: no second row, event or slot.
  const { result: created, events: written } = await writeRoomEvents(db, input.roomId, fileQuestion, {
    idempotencyKey: input.idempotencyKey,
    carry: input.carry,
    change: {
      type: "broadcast.asked",
      request: { by: input.asker.id, question: input.question, targetAgents: input.targetAgents, options: input.options },
    },
  });
  if (!created) return carryOn(deps, input, eventPayload(written, "broadcast.asked").broadcast.id, team, settings);
  if (mode === "human") return askHuman(deps, input, created, settings);
  const asking = askAgents(deps, input, created, targets, settings);
  askingHere.set(created.id, asking);
  try {
    return await asking;
  } finally {
    askingHere.delete(created.id);
  }
}

/** The questions this process is asking the other agents now, by id: their shadows run here. */
const askingHere = new Map<string, Promise<AskOthersResult>>();

/**
 * The same call again: the question it asked the first time, carried on from where it is.
 * An open question is waited for up to its own deadline, as the first call would have; one
 * that has ended reports what it got. In agents mode, when the first call still runs in this
 * process it is awaited; otherwise its shadows stopped with it (or with the worker that ran
 * them), and the targets that have not answered are asked again, one stored answer each.
 */
async function carryOn(
  deps: AskOthersDeps,
  input: AskOthersInput,
  broadcastId: string,
  team: Agent[],
  settings: RoomSettings,
): Promise<AskOthersResult> {
  const db = deps.database.db;
  // The first call still runs here and its shadows are answering: wait for it rather than ask them twice.
  const running = askingHere.get(broadcastId);
  if (running) await settledOrAborted(running, input.signal);
  const [broadcast] = await db.select().from(broadcasts).where(eq(broadcasts.id, broadcastId));
  if (!broadcast) throw badRequest("The question asked by this call no longer exists.");
  if (!ACTIVE_STATUSES.includes(broadcast.status)) return outcomeOf(deps, broadcast);
  if (broadcast.mode === "human") return askHuman(deps, input, broadcast, settings);
  const answered = await db
    .select({ responderId: broadcastResponses.responderId })
    .from(broadcastResponses)
    .where(eq(broadcastResponses.broadcastId, broadcast.id));
  const missing = team.filter(
    (agent) => broadcast.targetAgentIds.includes(agent.id) && !answered.some((answer) => answer.responderId === agent.id),
  );
  const asked = await askAgents(deps, input, broadcast, missing, settings);
  if (asked.status === "deferred") return asked;
  return { status: asked.status, responses: (await outcomeOf(deps, broadcast)).responses };
}

function pickTargets(team: Agent[], asker: Agent, wanted: string[] | undefined): Agent[] {
  const others = team.filter((agent) => agent.id !== asker.id);
  if (!wanted || wanted.length === 0) return others;
  const matches = (agent: Agent, name: string) => {
    const key = name.trim().toLowerCase();
    return agent.id === name || agent.persona.toLowerCase() === key || agent.name.toLowerCase() === key;
  };
  const unknown = wanted.filter((name) => !others.some((agent) => matches(agent, name)));
  if (unknown.length) {
    throw badRequest(
      `Unknown target agent(s): ${unknown.join(", ")}. Ask any of: ${others.map((agent) => agent.name).join(", ")}.`,
    );
  }
  return others.filter((agent) => wanted.some((name) => matches(agent, name)));
}

/* ───────────── agents mode ───────────── */

async function askAgents(
  deps: AskOthersDeps,
  input: AskOthersInput,
  broadcast: Broadcast,
  targets: Agent[],
  settings: RoomSettings,
): Promise<AskOthersResult> {
  const db = deps.database.db;
  const abandon = new AbortController();
  const onOuterAbort = () => abandon.abort(input.signal?.reason);
  if (input.signal?.aborted) onOuterAbort();
  input.signal?.addEventListener("abort", onOuterAbort, { once: true });
  const answers: BroadcastAnswer[] = [];
  let open = true;
  const question = input.options?.length ? `${input.question}\nOptions: ${input.options.join(" | ")}` : input.question;

  const shadows = targets.map(async (responder) => {
    const answer = await respondAsShadow(
      { db, resolveModel: deps.resolveModel },
      {
        responder,
        askerName: input.asker.name,
        question,
        depth: settings.response_depth,
        signal: abandon.signal,
        seed: settings.script_seed,
      },
    );
    // An answer that comes after the asker stopped is not stored: a call carrying the question on asks again.
    if (!open || abandon.signal.aborted) return;
    const { result: stored } = await writeRoomEvents(db, input.roomId, async (tx, emit, at) => {
      // The deadline may have closed the broadcast since the check above; a late answer is not stored.
      const [pending] = await tx
        .select({ id: broadcasts.id })
        .from(broadcasts)
        .where(and(eq(broadcasts.id, broadcast.id), eq(broadcasts.status, "pending")))
        .for("update");
      if (!pending) return false;
      // Each target answers once, even when its shadow was launched again after a takeover
      // while the first one, on a worker that lost the run, was still answering.
      const [earlier] = await tx
        .select({ id: broadcastResponses.id })
        .from(broadcastResponses)
        .where(and(eq(broadcastResponses.broadcastId, broadcast.id), eq(broadcastResponses.responderId, responder.id)));
      if (earlier) return false;
      const [row] = await tx
        .insert(broadcastResponses)
        .values({
          id: randomUUID(),
          broadcastId: broadcast.id,
          roomId: input.roomId,
          responderId: responder.id,
          responderName: responder.name,
          isHuman: false,
          content: answer.content,
          durationMs: answer.durationMs,
          inputTokens: answer.inputTokens,
          outputTokens: answer.outputTokens,
          costUsd: answer.costUsd,
          createdAt: at,
        })
        .returning();
      emit({
        type: "broadcast.response",
        actor: actorOf(responder),
        targetAgent: input.asker.id,
        correlationId: broadcast.correlationId,
        payload: { response: responseToDto(row!) },
      });
      await leaveNote(tx, {
        roomId: input.roomId,
        agentId: responder.id,
        text: shadowNote(input.asker.name, input.question, answer.content),
        broadcastId: broadcast.id,
        at,
      });
      return true;
    });
    if (stored) answers.push({ responder_id: responder.name, responder_name: responder.name, content: answer.content, is_human: false });
  });

  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    // The question's own deadline, which a call carrying it on keeps.
    timer = setTimeout(() => resolve("timeout"), Math.max(0, broadcast.deadlineAt!.getTime() - Date.now()));
  });
  const settled = Promise.allSettled(shadows).then((results) => {
    for (const [index, result] of results.entries()) {
      if (result.status === "rejected" && !abandon.signal.aborted) {
        console.warn(`[parley] ${targets[index]!.name}'s shadow could not answer:`, (result.reason as Error)?.message ?? result.reason);
      }
    }
    return "complete" as const;
  });
  // A stopped asker stops waiting at once, whatever its shadows are doing.
  const abandoned = new Promise<"abandoned">((resolve) => {
    if (abandon.signal.aborted) resolve("abandoned");
    abandon.signal.addEventListener("abort", () => resolve("abandoned"), { once: true });
  });
  const outcome = await Promise.race([settled, deadline, abandoned]);
  clearTimeout(timer);
  open = false;
  input.signal?.removeEventListener("abort", onOuterAbort);
  if (outcome === "timeout") abandon.abort(new Error("broadcast timeout"));
  // A stopped asker will not read the answers, however many came; a responder that failed
  // gives no answer; only the deadline makes the outcome a timeout.
  const status = input.signal?.aborted ? "cancelled" : outcome === "complete" ? "complete" : "timeout";
  // Ended first elsewhere (its deadline passed, or its run ended), or left to its run: the
  // asker is told what the room sees.
  const ended = (await endQuestion(deps, input, broadcast, status)) ? status : await outcomeInRoom(deps, broadcast.id);
  return { status: ended, responses: answers.slice() };
}

/** Waits for `work` to settle or `signal` to abort, whichever comes first. */
function settledOrAborted(work: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      signal?.removeEventListener("abort", done);
      resolve();
    };
    if (signal?.aborted) return resolve();
    signal?.addEventListener("abort", done, { once: true });
    void work.then(done, done);
  });
}

/* ───────────── human mode ───────────── */

type Turn = { kind: "open" } | { kind: "deferred"; history: HumanQa[] } | { kind: "wait" } | { kind: "ended" };

async function waitForChange(
  deps: AskOthersDeps,
  roomId: string,
  until: Date,
  signal: AbortSignal | undefined,
): Promise<void> {
  await new Promise<void>((resolve) => {
    const limit = Math.max(0, Math.min(deps.pollMs ?? 1000, until.getTime() - Date.now()));
    const done = () => {
      clearTimeout(timer);
      unsubscribe();
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, limit);
    const unsubscribe = deps.bus.subscribe(roomId, (delivery) => {
      if (delivery.kind === "event" && delivery.event.type.startsWith("broadcast.")) done();
    });
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Takes the room's single human-question slot when it is this broadcast's turn (oldest
 * waiting first). Overdue questions are timed out first, so an asker that crashed, open or
 * still waiting, cannot hold the room. The room row lock serialises this; a unique index
 * guards it as well.
 */
async function tryAcquire(deps: AskOthersDeps, broadcast: Broadcast, settings: RoomSettings, asker: Agent): Promise<Turn> {
  const { result } = await writeRoomEvents(deps.database.db, broadcast.roomId, async (tx, emit, at): Promise<Turn> => {
    await expireOverdueBroadcasts(tx, emit, broadcast.roomId, at, settings.broadcast_timeout);

    const [own] = await tx.select({ status: broadcasts.status }).from(broadcasts).where(eq(broadcasts.id, broadcast.id));
    // Opened by the earlier call this one carries on (still running where its run was lost).
    if (own?.status === "open") return { kind: "open" };
    if (own?.status !== "waiting_turn") return { kind: "ended" };
    const [first] = await tx
      .select({ id: broadcasts.id })
      .from(broadcasts)
      .where(and(eq(broadcasts.roomId, broadcast.roomId), eq(broadcasts.mode, "human"), eq(broadcasts.status, "waiting_turn")))
      .orderBy(asc(broadcasts.createdAt))
      .limit(1);
    if (first?.id !== broadcast.id) return { kind: "wait" };
    const [busy] = await tx
      .select({ id: broadcasts.id })
      .from(broadcasts)
      .where(
        and(
          eq(broadcasts.roomId, broadcast.roomId),
          eq(broadcasts.mode, "human"),
          eq(broadcasts.status, "open"),
          ne(broadcasts.id, broadcast.id),
        ),
      );
    if (busy) return { kind: "wait" };

    if (await hasUnseenAnswers(tx, broadcast.roomId, asker.id)) {
      const history = await humanQaHistory(tx, broadcast.roomId);
      await markAnswersSeen(tx, broadcast.roomId, asker.id, history.at(-1)!.answeredAt);
      await closeBroadcast(tx, emit, broadcast, "deferred", at, actorOf(asker));
      return { kind: "deferred", history: history.map(({ question, answer }) => ({ question, answer })) };
    }

    await tx.update(broadcasts).set({ status: "open", openedAt: at }).where(eq(broadcasts.id, broadcast.id));
    emit({
      type: "broadcast.opened",
      actor: actorOf(asker),
      targetAgent: "human",
      correlationId: broadcast.correlationId,
      status: "pending",
      nextSteps: ["broadcast.response", "broadcast.closed"],
      payload: { broadcastId: broadcast.id, deadlineAt: broadcast.deadlineAt!.toISOString(), openedAt: at.toISOString() },
    });
    return { kind: "open" };
  });
  return result!;
}

async function askHuman(deps: AskOthersDeps, input: AskOthersInput, broadcast: Broadcast, settings: RoomSettings): Promise<AskOthersResult> {
  const deadline = broadcast.deadlineAt!;
  const stillWaiting = async (): Promise<boolean> => {
    if (input.signal?.aborted) await endQuestion(deps, input, broadcast, "cancelled");
    else if (Date.now() >= deadline.getTime()) await endQuestion(deps, input, broadcast, "timeout");
    else return true;
    return false;
  };
  try {
    // A question carried on from an earlier call may have had its turn already.
    let turn: Turn = broadcast.status === "open" ? { kind: "open" } : { kind: "wait" };
    while (turn.kind === "wait" && (await stillWaiting())) {
      turn = await tryAcquire(deps, broadcast, settings, input.asker);
      if (turn.kind === "wait") await waitForChange(deps, input.roomId, deadline, input.signal);
    }
    if (turn.kind === "deferred") return deferredResult(turn.history);
    while (turn.kind === "open" && (await stillWaiting())) {
      const [row] = await deps.database.db.select({ status: broadcasts.status }).from(broadcasts).where(eq(broadcasts.id, broadcast.id));
      if (row?.status !== "open") break;
      await waitForChange(deps, input.roomId, deadline, input.signal);
    }
  } catch (error) {
    // Nobody is waiting for this question any more; leave nothing for the room to wait on.
    await closeQuestion(deps, input, broadcast, "cancelled").catch(() => {});
    throw error;
  }
  // The asker is told what the room sees: answered, skipped by a person, no answer in time,
  // or withdrawn because the asker stopped.
  return outcomeOf(deps, broadcast);
}

/* ───────────── how a question ends ───────────── */

/** Ends a question with its asker's outcome; false when it had already ended. */
async function closeQuestion(deps: AskOthersDeps, input: AskOthersInput, broadcast: Broadcast, status: BroadcastOutcome): Promise<boolean> {
  const { result } = await writeRoomEvents(deps.database.db, input.roomId, (tx, emit, at) =>
    closeBroadcast(tx, emit, broadcast, status, at, actorOf(input.asker)),
  );
  return result === true;
}

/**
 * Ends a question as its asker's wait ended: answered, out of time, or stopped. A run's
 * question is not cancelled when its asker stops (its run was stopped): an attempt that takes
 * the run over carries on with it, and the run's end cancels it. False when not ended here.
 */
async function endQuestion(
  deps: AskOthersDeps,
  input: AskOthersInput,
  broadcast: Broadcast,
  status: "complete" | "timeout" | "cancelled",
): Promise<boolean> {
  if (status === "cancelled" && input.runId) return false;
  return closeQuestion(deps, input, broadcast, status);
}

/** How the room saw a question end, as ask_others reports it. */
function reportedStatus(status: BroadcastStatus | undefined): "complete" | "timeout" | "skipped" | "cancelled" {
  if (status === "complete" || status === "skipped" || status === "cancelled") return status;
  // Still waiting for answers: its asker stopped and left it to its run.
  if (status && ACTIVE_STATUSES.includes(status)) return "cancelled";
  return "timeout";
}

async function outcomeInRoom(deps: AskOthersDeps, broadcastId: string): Promise<"complete" | "timeout" | "skipped" | "cancelled"> {
  const [row] = await deps.database.db.select({ status: broadcasts.status }).from(broadcasts).where(eq(broadcasts.id, broadcastId));
  return reportedStatus(row?.status);
}

function deferredResult(history: HumanQa[]): AskOthersResult {
  return {
    status: "deferred",
    responses: [],
    human_qa_history: history.map(({ question, answer }) => ({ question, answer })),
    human_qa_note: HUMAN_QA_NOTE,
  };
}

/** What a question got, as ask_others reports it: the outcome the room sees and the answers stored. */
async function outcomeOf(deps: AskOthersDeps, broadcast: Broadcast): Promise<AskOthersResult> {
  const db = deps.database.db;
  const [[row], responses] = await Promise.all([
    db.select({ status: broadcasts.status, closedAt: broadcasts.closedAt }).from(broadcasts).where(eq(broadcasts.id, broadcast.id)),
    db.select().from(broadcastResponses).where(eq(broadcastResponses.broadcastId, broadcast.id)).orderBy(asc(broadcastResponses.createdAt)),
  ]);
  if (row?.status === "deferred") {
    // A call made again gets the answers the first one was given instead of a prompt.
    const history = await humanQaHistory(db, broadcast.roomId);
    return deferredResult(history.filter((qa) => qa.answeredAt <= row.closedAt!));
  }
  return {
    status: reportedStatus(row?.status),
    responses: responses.map((response) => ({
      responder_id: response.isHuman ? "human" : response.responderName,
      responder_name: response.responderName,
      content: response.content,
      is_human: response.isHuman,
    })),
  };
}
