import { and, asc, eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { type Run, agentNotes, runs } from "@/db/schema";
import { cancelRunBroadcasts } from "@/lib/broadcast/end-orphaned-broadcasts";
import { type Actor, type CarriedChanges, type Emit, writeRoomEvents } from "@/lib/events/write-room-events";
import { lockVaultOfAgent, recordTask } from "@/lib/knowledge/vault";
import type { ErrorDetails, LimitReachedPayload } from "@/lib/protocol";
import { emitLimitReached } from "@/lib/limits/limit-reached";
import { forgetSavedSteps } from "./save-run-step";
import { advanceWorkflow } from "./advance-workflow";
import { followUpWaitingMessages } from "@/lib/commands/follow-up-waiting-messages";
import { settleRequest } from "./settle-request";
import { postA2aReply } from "./a2a-reply";

export interface RunOutcome {
  status: "succeeded" | "failed" | "cancelled";
  error: ErrorDetails | null;
  /** The limit that stopped the run, announced (`limit.reached`) before the run's end. */
  limit?: LimitReachedPayload;
  /** Time spent working on the run, over all its attempts. */
  durationMs: number;
}

/**
 * Records how a run ended — error, the request it answered, the questions it left
 * unanswered — and announces it (`run.finished`) with its totals as the row holds them:
 * every model call of every attempt that returned usage counts, once, whether or not its
 * step was saved, not only those of the attempt that finished it. `carry` brings the calls
 * no earlier write of the run carried, so the totals read here include them.
 * Only the worker that still holds the lease may finish a running run; returns false when
 * the run was taken over meanwhile.
 */
export async function finishRun(
  db: Db,
  run: Run,
  agent: Actor,
  outcome: RunOutcome,
  owner: string | null,
  carry?: CarriedChanges,
): Promise<boolean> {
  const { result } = await writeRoomEvents(db, run.roomId, (tx, emit, at) => finishRunInWrite(tx, emit, at, run, agent, outcome, owner), {
    carry,
  });
  return result === true;
}

/** `finishRun` inside a room write the caller holds: for a write that ends a run among changes of its own. */
export async function finishRunInWrite(
  tx: DbOrTx,
  emit: Emit,
  at: Date,
  run: Run,
  agent: Actor,
  outcome: RunOutcome,
  owner: string | null,
): Promise<boolean> {
  const conditions = [eq(runs.id, run.id), sql`${runs.status} in ('queued', 'running')`];
  if (owner) conditions.push(eq(runs.leaseOwner, owner));
  const [finished] = await tx
    .update(runs)
    .set({
      status: outcome.status,
      finishedAt: at,
      leaseOwner: null,
      leaseExpiresAt: null,
      streamingText: "",
      opening: null,
      error: outcome.error,
    })
    .where(and(...conditions))
    .returning({
      steps: runs.steps,
      attempts: runs.attempts,
      inputTokens: runs.inputTokens,
      outputTokens: runs.outputTokens,
      costUsd: runs.costUsd,
      transcript: runs.transcript,
    });
  if (!finished) return false;
  const { transcript, ...totals } = finished;
  await forgetSavedSteps(tx, run.id);
  await afterRunEnded(
    tx,
    emit,
    { ...run, ...totals, transcript },
    { status: outcome.status, error: outcome.error, at, durationMs: outcome.durationMs },
    agent,
  );
  await cancelRunBroadcasts(tx, emit, run.id, at, agent);
  if (outcome.limit) emitLimitReached(emit, agent, run.correlationId, outcome.limit);
  emit({
    type: "run.finished",
    actor: agent,
    correlationId: run.correlationId,
    status: outcome.status === "failed" ? "error" : "success",
    errorDetails: outcome.error,
    payload: {
      runId: run.id,
      agentId: run.agentId,
      status: outcome.status,
      error: outcome.error,
      durationMs: outcome.durationMs,
      ...totals,
    },
  });
  return true;
}

/** The last text a run wrote, from its transcript: what a help request is answered with. */
function lastWords(transcript: unknown[]): string {
  for (let index = transcript.length - 1; index >= 0; index--) {
    const entry = transcript[index] as { role?: unknown; text?: unknown } | null;
    if (entry?.role === "assistant" && typeof entry.text === "string" && entry.text.trim()) return entry.text.trim();
  }
  return "";
}

/**
 * What follows the end of every run, in the write that ends it: a build review or dialogue it
 * was part of moves on, the request it served is settled (a help request answered), the task
 * goes into the agent's knowledge vault, and participants' messages it did not take get a run
 * of their own (see `followUpAfter`).
 */
export async function afterRunEnded(
  tx: DbOrTx,
  emit: Emit,
  run: Run,
  outcome: { status: RunOutcome["status"]; error: RunOutcome["error"]; at: Date; durationMs: number },
  agent: Actor,
): Promise<void> {
  // A build review or a dialogue moves on in the same write.
  await advanceWorkflow(tx, emit, run, agent, {
    status: outcome.status,
    text: lastWords(run.transcript),
    durationMs: outcome.durationMs,
    at: outcome.at,
  });
  await settleRequest(
    tx,
    emit,
    run,
    { status: outcome.status, reason: outcome.error?.error_message ?? null, answer: lastWords(run.transcript), at: outcome.at },
    agent,
  );
  await postA2aReply(tx, emit, run, { status: outcome.status, text: lastWords(run.transcript), at: outcome.at }, agent);
  const identity = await lockVaultOfAgent(tx, run.agentId);
  if (identity) {
    await recordTask(tx, {
      identity,
      roomId: run.roomId,
      runId: run.id,
      asked: await whatWasAsked(tx, run),
      outcome: outcome.status === "succeeded" ? "done" : `${outcome.status}${outcome.error ? `: ${outcome.error.error_message}` : ""}`,
      steps: run.steps,
      costUsd: run.costUsd,
      at: outcome.at,
    });
  }
  await followUpAfter(tx, emit, run, outcome);
}

/**
 * What a run was asked, for its task history: its task, or — for a run started to act on
 * participants' messages — the messages themselves, in the order it read them.
 */
async function whatWasAsked(tx: DbOrTx, run: Run): Promise<string> {
  if (run.trigger !== "command") return run.prompt;
  const messages = await tx
    .select({ text: agentNotes.text })
    .from(agentNotes)
    .where(and(eq(agentNotes.deliveredToRunId, run.id), eq(agentNotes.kind, "command")))
    .orderBy(asc(agentNotes.deliveredAt), asc(agentNotes.createdAt), asc(agentNotes.ordinal));
  return messages.length ? messages.map((message) => message.text).join(" / ") : run.prompt;
}

/**
 * Participants' messages still waiting when a run of their agent ends — sent as it took its
 * last step, or meant for a queued run that was cancelled before it could read them — get a
 * run of their own, unless another run of the agent is queued or running and will read them.
 * Not after a run that failed before its first step (its model could not be used, say): a run
 * queued now would fail the same way, again and again; the messages wait for the agent's next
 * run instead.
 */
async function followUpAfter(tx: DbOrTx, emit: Emit, run: Run, outcome: { status: RunOutcome["status"]; at: Date }): Promise<void> {
  if (outcome.status === "failed" && run.steps === 0) return;
  await followUpWaitingMessages(tx, emit, { roomId: run.roomId, agentId: run.agentId, at: outcome.at, exceptRunId: run.id });
}
