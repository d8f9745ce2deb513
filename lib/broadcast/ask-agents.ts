import { isExternalModel } from "@/lib/external/external-model";
import { awaitOutsideAnswer } from "@/lib/external/outside-answers";
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { type Agent, type Broadcast, broadcastResponses, broadcasts } from "@/db/schema";
import { appendEvents, writeRoomEvents } from "@/lib/events/write-room-events";
import { addUsage } from "@/lib/usage/record-usage";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import type { LimitReachedPayload } from "@/lib/protocol";
import { leaveNote, shadowNote } from "./agent-notes";
import { responseToDto } from "./broadcast-dto";
import {
  type AskOthersDeps,
  type AskOthersInput,
  type AskOthersResult,
  type BroadcastAnswer,
  actorOf,
  endQuestion,
  outcomeInRoom,
} from "./question";
import { respondAsShadow } from "./respond-as-shadow";
import { spentToday, workflowCapReached } from "@/lib/limits/budget";
import { SpendRefusedError } from "@/lib/agents/reserve-calls";
import { shadowReservations } from "./shadow-reservations";
import { limitErrorDetails } from "@/lib/limits/limit-reached";

/**
 * Asks `targets` through parallel shadow responders, each with its responder's persona and
 * recent work and no tools, while the responders themselves keep working. Returns when all
 * have answered, when the question's deadline passes (the shadows still running are aborted
 * and their late answers are not stored) or when the asker stops. Each stored answer leaves
 * its responder a note, shown at its next step or run. No shadow answers while today's budgets
 * are spent (see `budgetKeepsShadowsQuiet`).
 */
export async function askAgents(
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
  const overBudget = await budgetKeepsShadowsQuiet(deps, input, broadcast, targets, settings);

  const shadows = (overBudget ? [] : targets).map(async (responder) => {
    // An outside agent answers through its own client, not a shadow: its answer is waited for until the deadline.
    if (isExternalModel(responder.model)) {
      const content = await awaitOutsideAnswer(deps, broadcast.id, responder, abandon.signal);
      if (content !== null && open)
        answers.push({ responder_id: responder.name, responder_name: responder.name, content, is_human: false });
      return;
    }
    // A shadow's answer is one of the workflow's model calls: not made once it would cross the workflow's cost cap.
    const capped = await workflowCapReached(
      db,
      { id: input.runId ?? broadcast.id, roomId: input.roomId, agentId: responder.id, correlationId: broadcast.correlationId },
      settings,
    );
    if (capped) throw new Error(capped.message);
    const reservations = await shadowReservations(db, input, responder, settings);
    const answer = await respondAsShadow(
      { db, resolveModel: deps.resolveModel, modelCallPolicy: deps.modelCallPolicy, reservations: reservations?.hooks },
      {
        responder,
        askerName: input.asker.name,
        question: input.question,
        options: input.options ?? [],
        depth: settings.response_depth,
        signal: abandon.signal,
        seed: settings.script_seed,
        // Shown in the question's thread and its workflow, as a run's retries are.
        onRetry: async (notice) => {
          await appendEvents(db, input.roomId, [
            {
              type: "broadcast.retrying",
              actor: actorOf(responder),
              targetAgent: input.asker.id,
              correlationId: broadcast.correlationId,
              status: "pending",
              errorDetails: notice.error,
              payload: { broadcastId: broadcast.id, responderId: responder.id, ...notice },
            },
          ]);
        },
      },
    ).catch(async (error: unknown) => {
      if (error instanceof SpendRefusedError) await tellRoomOfRefusedShadow(deps, input, broadcast, responder, error.reached);
      throw error;
    });
    // Spent whether or not the answer is kept; its usage replaces the reservation it held.
    if (answer.inputTokens + answer.outputTokens > 0) {
      const usage = addUsage(
        { agentId: responder.id },
        { calls: 1, inputTokens: answer.inputTokens, outputTokens: answer.outputTokens, costUsd: answer.costUsd },
      );
      await db.execute(reservations?.settling(usage) ?? usage);
    } else await reservations?.giveBack();
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
  return { status: ended, responses: answers.slice(), ...(overBudget ? { note: overBudget } : {}) };
}

/**
 * Why no shadow answers, when the room's or the instance's budget for today is spent: their
 * answers are model calls counted against those budgets as runs' are. The room is told with a
 * `limit.reached` in the question's workflow, and the asker gets the same words with the (empty)
 * answers. Null while the budgets have something left; each answer is checked against the
 * workflow's cost cap as well, just before it is asked.
 */
async function budgetKeepsShadowsQuiet(
  deps: AskOthersDeps,
  input: AskOthersInput,
  broadcast: Broadcast,
  targets: Agent[],
  settings: RoomSettings,
): Promise<string | null> {
  if (targets.length === 0) return null;
  const spent = await spentToday(deps.database.db, input.roomId, settings, { runId: input.runId, agentId: input.asker.id });
  if (!spent) return null;
  const message = `No agent answers ${input.asker.name}'s question: ${spent.message.charAt(0).toLowerCase()}${spent.message.slice(1)}`;
  const reached = { ...spent, message };
  // Best effort: the asker is told either way, and the question ends without answers.
  await appendEvents(deps.database.db, input.roomId, [
    {
      type: "limit.reached",
      actor: actorOf(input.asker),
      correlationId: broadcast.correlationId,
      status: "error",
      errorDetails: limitErrorDetails(reached),
      payload: reached,
    },
  ]).catch((error: unknown) => console.error("[parley] could not record why no agent answered:", error));
  return message;
}

/** The room learns that a shadow's answer was not asked for: what it could cost did not fit in a budget. */
async function tellRoomOfRefusedShadow(
  deps: AskOthersDeps,
  input: AskOthersInput,
  broadcast: Broadcast,
  responder: Agent,
  refused: LimitReachedPayload,
): Promise<void> {
  const reached = {
    ...refused,
    agentId: responder.id,
    message: `${responder.name} does not answer ${input.asker.name}'s question: ${refused.message}`,
  };
  await appendEvents(deps.database.db, input.roomId, [
    {
      type: "limit.reached",
      actor: actorOf(responder),
      correlationId: broadcast.correlationId,
      status: "error",
      errorDetails: limitErrorDetails(reached),
      payload: reached,
    },
  ]).catch((error: unknown) => console.error("[parley] could not record why a shadow did not answer:", error));
}

/** Waits for `work` to settle or `signal` to abort, whichever comes first. */
export function settledOrAborted(work: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
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
