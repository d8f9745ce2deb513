import { createHash, randomUUID } from "node:crypto";
import { and, asc, desc, eq, gt, inArray, isNull, notInArray } from "drizzle-orm";
import { z } from "zod";
import type { Db, DbOrTx } from "@/db";
import { type Agent, agentNotes, agents, events, rooms, runs, seats } from "@/db/schema";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import { refuseUnrunnableModel } from "@/lib/agents/start-agent-run";
import { isExternalModel } from "@/lib/external/external-model";
import { seatActor } from "@/lib/auth/seats";
import { isolatedAgentIds, refuseWhileAlone } from "@/lib/brainstorm/stage-context";
import { badRequest, notFound, tooManyRequests } from "@/lib/errors";
import { type WriteRequestOptions, eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import { enforceRate } from "@/lib/limits/rate-limit";
import { refuseOverBudget } from "@/lib/limits/refuse-over-budget";
import type { CommandDelivery, CommandDto } from "@/lib/protocol";
import { createCorrelationId } from "@/lib/protocol/correlation-id";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { parseCommand } from "./parse-command";

export const sendCommandInputSchema = z.strictObject({ text: z.string().max(10_000) });

/** How a participant's message reads to its agent. */
function commandNoteText(senderName: string, text: string): string {
  return `${senderName} says: ${text}`;
}

/** The task of a run started to act on participants' messages: the messages themselves come as notes. */
export function commandRunPrompt(senderName: string): string {
  return `${senderName} sent you a message (under "Messages for you"). Act on it now.`;
}

export type SendCommandResult = { kind: "focus"; agentId: string | null } | { kind: "message"; command: CommandDto };

/**
 * The agent whose step was the room's most recent (the newest `run.step` event): where a
 * message naming nobody goes when the seat has no focus. An agent still stepping in an older
 * run is more recent than one whose newer run finished earlier. Agents working alone (a
 * brainstorm's ideators during divergent thinking) are passed over: nobody may reach them.
 */
async function lastSteppedAgent(tx: DbOrTx, roomId: string): Promise<string | null> {
  const alone = [...(await isolatedAgentIds(tx, roomId))];
  const [last] = await tx
    .select({ agentId: events.agent })
    .from(events)
    .where(and(eq(events.roomId, roomId), eq(events.type, "run.step"), alone.length ? notInArray(events.agent, alone) : undefined))
    .orderBy(desc(events.seq))
    .limit(1);
  return last?.agentId ?? null;
}

/**
 * A seat's focus changes form one workflow of their own, whose correlation id is made from the
 * seat alone: its rate limit finds them through the room's (correlation, seq) index instead of
 * reading the room's whole history.
 */
function focusCorrelationId(seat: { id: string; createdAt: Date }): string {
  const random = () => createHash("sha256").update(seat.id).digest("hex").slice(0, 16);
  return createCorrelationId({ scope: "focus", subject: seat.id, now: seat.createdAt, random });
}

/**
 * Refuses a seat's message or `/focus` beyond `commands_per_minute` within the last minute
 * (both count), with the seconds until one more is allowed.
 */
async function checkRate(tx: DbOrTx, roomId: string, senderId: string, focusWorkflow: string, limit: number, at: Date): Promise<void> {
  const window = new Date(at.getTime() - 60_000);
  const [messages, focusChanges] = await Promise.all([
    tx
      .select({ createdAt: agentNotes.createdAt })
      .from(agentNotes)
      .where(and(eq(agentNotes.senderId, senderId), gt(agentNotes.createdAt, window))),
    tx
      .select({ createdAt: events.createdAt })
      .from(events)
      .where(
        and(
          eq(events.roomId, roomId),
          eq(events.correlationId, focusWorkflow),
          eq(events.type, "seat.focused"),
          gt(events.createdAt, window),
        ),
      ),
  ]);
  const sent = [...messages, ...focusChanges].map((row) => row.createdAt.getTime()).sort((a, b) => a - b);
  if (sent.length < limit) return;
  const freed = sent[sent.length - limit]! + 60_000;
  const wait = Math.max(1, Math.ceil((freed - at.getTime()) / 1000));
  throw tooManyRequests(`At most ${limit} messages a minute from one seat, /focus included; try again in ${wait} s.`, wait);
}

export interface SendCommandOptions extends WriteRequestOptions {
  /**
   * The client address the message came from: a message that starts a run counts against its
   * allowance of agents started (`PARLEY_RUN_STARTS_PER_MINUTE`), as a run started directly does.
   */
  runStartsFrom?: string;
  /** A message that would start a run for an agent whose model cannot run here is refused (409), writing nothing. */
  refuseUnrunnable?: boolean;
}

/**
 * What a participant typed in the command bar, acted on in one room write: `/focus` moves the
 * seat's focus (`seat.focused`); a message is kept for its agent until delivered
 * (`command.sent`) and reaches it at once — in the next model call of its running run, in
 * its queued run, or in a run started for it. A seat may send `commands_per_minute`
 * messages and focus changes a minute (429 with `Retry-After` beyond); a message that would
 * start a run is refused with a 429, writing nothing, once `runStartsFrom` has started its
 * minute's allowance of agents, and with a 429 (`budget_exceeded`), writing nothing but the
 * room's `limit.reached`, while the room's or the instance's budget has no room for that run;
 * a message for an agent whose run is queued or running is kept and delivered whatever the
 * budgets, since it starts nothing. A message for an agent working alone in a brainstorm's
 * divergent thinking is refused with a 409, writing nothing; one naming nobody passes over it.
 * With `refuseUnrunnable`, a message that would start a run for an agent whose model cannot run
 * here is refused (409 `model_unavailable`), writing nothing.
 */
export async function sendCommand(
  db: Db,
  roomId: string,
  seat: { id: string; displayName: string },
  text: string,
  options: SendCommandOptions = {},
): Promise<SendCommandResult> {
  const { runStartsFrom, refuseUnrunnable, ...writeOptions } = options;
  const team = await db.select().from(agents).where(eq(agents.roomId, roomId)).orderBy(asc(agents.position));
  const parsed = parseCommand(text, team);
  const actor = seatActor(seat);
  return refuseOverBudget(db, roomId, actor, async (checkBudget) => {
    const { result, events: written } = await writeRoomEvents(
      db,
      roomId,
      async (tx, emit, at): Promise<SendCommandResult> => {
        const [[room], [mine]] = await Promise.all([
          tx.select({ settings: rooms.settings }).from(rooms).where(eq(rooms.id, roomId)),
          tx.select({ focus: seats.focusAgentId, createdAt: seats.createdAt }).from(seats).where(eq(seats.id, seat.id)),
        ]);
        if (!room) throw notFound("Room");
        if (!mine) throw notFound("Seat");
        const settings = parseRoomSettings(room.settings);
        const focusWorkflow = focusCorrelationId({ id: seat.id, createdAt: mine.createdAt });
        await checkRate(tx, roomId, actor.id, focusWorkflow, settings.commands_per_minute, at);
        if (parsed.kind === "focus") {
          await tx.update(seats).set({ focusAgentId: parsed.agentId }).where(eq(seats.id, seat.id));
          emit({ type: "seat.focused", actor, correlationId: focusWorkflow, payload: { seatId: seat.id, agentId: parsed.agentId } });
          return parsed;
        }
        const agentId = parsed.agentId ?? mine.focus ?? (await lastSteppedAgent(tx, roomId));
        const agent: Agent | undefined = team.find((member) => member.id === agentId);
        if (!agent) {
          throw badRequest(
            `No agent has worked in this room yet, so there is no one to send it to: name one, e.g. @${team[0]?.name ?? "Name"} ${parsed.text}.`,
          );
        }
        // Named or focused: an ideator thinking alone is not reached, nor is anything kept for later.
        await refuseWhileAlone(tx, roomId, agent);
        const active = await tx
          .select({ id: runs.id, status: runs.status, correlationId: runs.correlationId })
          .from(runs)
          .where(and(eq(runs.agentId, agent.id), inArray(runs.status, ["running", "queued"])))
          .orderBy(asc(runs.createdAt));
        const running = active.find((run) => run.status === "running");
        const queued = active.find((run) => run.status === "queued");
        // The message is announced first (an idempotent retry finds it by its first event), then the run started for it.
        // An outside agent's own client does its thinking: its messages wait in its inbox, starting nothing.
        const delivery: CommandDelivery = isExternalModel(agent.model)
          ? "inbox"
          : running
            ? "next_step"
            : queued
              ? "queued_run"
              : "new_run";
        // A message for a working agent starts nothing: its run's own checks before each step
        // decide whether it goes on. One that needs a run is refused while the run would not fit.
        if (delivery === "new_run" && refuseUnrunnable) refuseUnrunnableModel(agent);
        if (delivery === "new_run") await checkBudget(tx, settings, agent, at);
        // Counted in this write, so a refusal writes nothing and a failed write gives the start back.
        if (delivery === "new_run" && runStartsFrom !== undefined)
          await enforceRate(tx, "runStarts", runStartsFrom, { inTransaction: true });
        const runId = running?.id ?? queued?.id ?? randomUUID();
        // The message belongs to the workflow of the run that will read it.
        const correlationId =
          running?.correlationId ??
          queued?.correlationId ??
          createCorrelationId({ scope: `run-${roomId.slice(0, 8)}`, subject: parsed.text, now: at });
        const id = randomUUID();
        await tx.insert(agentNotes).values({
          id,
          roomId,
          agentId: agent.id,
          kind: "command",
          text: commandNoteText(seat.displayName, parsed.text),
          senderId: actor.id,
          senderName: seat.displayName,
          createdAt: at,
        });
        const command: CommandDto = {
          id,
          agentId: agent.id,
          senderId: actor.id,
          senderName: seat.displayName,
          text: parsed.text,
          delivery,
          runId: delivery === "inbox" ? null : runId,
          createdAt: at.toISOString(),
        };
        emit({ type: "command.sent", actor, targetAgent: agent.id, correlationId, payload: { command } });
        if (delivery === "new_run") {
          await enqueueRun(tx, emit, {
            id: runId,
            correlationId,
            roomId,
            agentId: agent.id,
            trigger: "command",
            requestedBy: actor,
            prompt: commandRunPrompt(seat.displayName),
            at,
          });
        }
        return { kind: "message", command };
      },
      writeOptions.idempotencyKey
        ? {
            ...writeOptions,
            idempotencyKey: writeOptions.idempotencyKey,
            change: { type: parsed.kind === "focus" ? "seat.focused" : "command.sent", request: { by: actor.id, text } },
          }
        : { ...writeOptions, idempotencyKey: undefined },
    );
    // A retried request: what the first one did is already in the room.
    return result ?? (parsed.kind === "focus" ? parsed : { kind: "message", command: eventPayload(written, "command.sent").command });
  });
}

/** A note not yet delivered nor withdrawn. */
export function isPending() {
  return and(isNull(agentNotes.deliveredAt), isNull(agentNotes.cancelledAt))!;
}
