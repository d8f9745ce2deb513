import { isExternalModel } from "@/lib/external/external-model";
import { randomUUID } from "node:crypto";
import { and, count, eq, inArray, isNull } from "drizzle-orm";
import { type Agent, type Broadcast, agents, broadcastResponses, broadcasts, rooms } from "@/db/schema";
import { findTeammate } from "@/lib/agents/find-teammate";
import { badRequest } from "@/lib/errors";
import { type WriteWork, eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import { type RoomSettings, parseRoomSettings } from "@/lib/rooms/room-settings";
import { ASKING_WHILE_ALONE, isolatedAgentIds } from "@/lib/brainstorm/stage-context";
import { askAgents, settledOrAborted } from "./ask-agents";
import { askHuman } from "./ask-human";
import { broadcastToDto } from "./broadcast-dto";
import { ACTIVE_STATUSES } from "./close-broadcast";
import { findEarlierAnswer } from "./human-qa";
import { giveEarlierAnswer, openNextQuestion, queuedDeadline } from "./next-question";
import { questionKey } from "./same-question";
import { type AskOthersDeps, type AskOthersInput, type AskOthersResult, actorOf, outcomeOf } from "./question";

export type { AskOthersDeps, AskOthersInput, AskOthersResult } from "./question";

/**
 * ask_others (docs/behaviour/asking-others.md). In agents mode every target answers through a parallel shadow
 * responder and the call returns when all have answered or `broadcast_timeout` passes,
 * whichever comes first. In human mode the question goes to the people in the room, one
 * question at a time per room; a question the people already answered (the same question,
 * asked by any agent in any run) gets that answer back (`reused`) instead of a new prompt.
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

  // Agents working alone in a brainstorm's divergent stage are nobody's to ask, and ask nobody (their question could carry their ideas).
  const [everyone, alone] = await Promise.all([
    db.select().from(agents).where(eq(agents.roomId, input.roomId)),
    isolatedAgentIds(db, input.roomId),
  ]);
  if (alone.has(input.asker.id)) {
    throw badRequest(ASKING_WHILE_ALONE);
  }
  const team = everyone.filter((agent) => !alone.has(agent.id));
  const targets = settings.broadcast === "agents" ? pickTargets(team, input.asker, input.targetAgents) : [];
  const mode = settings.broadcast;

  const fileQuestion: WriteWork<Broadcast> = async (tx, emit, at) => {
    const [active] = await tx
      .select({ value: count() })
      .from(broadcasts)
      // A question the people put to the room again is theirs: it takes none of the agent's slots.
      .where(and(eq(broadcasts.agentId, input.asker.id), inArray(broadcasts.status, ACTIVE_STATUSES), isNull(broadcasts.askedAgainOf)));
    if (Number(active?.value ?? 0) >= settings.max_broadcasts_per_agent) {
      throw badRequest(
        `You already have ${active?.value} active broadcasts; the limit is ${settings.max_broadcasts_per_agent}. ` +
          "Wait for their answers before asking again.",
      );
    }
    // A question to the people waits for its turn: at most one timeout for each question ahead of it.
    const deadline =
      mode === "human"
        ? await queuedDeadline(tx, input.roomId, at, settings.broadcast_timeout)
        : new Date(at.getTime() + settings.broadcast_timeout * 1000);
    const key = mode === "human" ? questionKey(input.question, input.options) : null;
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
        deadlineAt: deadline,
        createdAt: at,
        questionKey: key,
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
    if (mode === "human") {
      // Asked before, by any agent in any run: the people's answer is given, not asked for again.
      const earlier = await findEarlierAnswer(tx, input.roomId, key);
      if (earlier) await giveEarlierAnswer(tx, emit, row!, earlier, at);
      else await openNextQuestion(tx, emit, input.roomId, at);
    }
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
  if (asked.status === "reused") return asked;
  return { status: asked.status, responses: (await outcomeOf(deps, broadcast)).responses, ...(asked.note ? { note: asked.note } : {}) };
}

export function pickTargets(team: Agent[], asker: Agent, wanted: string[] | undefined): Agent[] {
  const others = team.filter((agent) => agent.id !== asker.id);
  // Outside agents answer only when named: asking everyone must not wait on a client that may not be listening.
  if (!wanted || wanted.length === 0) return others.filter((agent) => !isExternalModel(agent.model));
  const found = wanted.map((name) => findTeammate(others, name));
  const unknown = wanted.filter((_name, index) => !found[index]);
  if (unknown.length) {
    throw badRequest(`Unknown target agent(s): ${unknown.join(", ")}. Ask any of: ${others.map((agent) => agent.name).join(", ")}.`);
  }
  return others.filter((agent) => found.includes(agent));
}
