import { and, count, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type RequestStatus, type Run, boardEntries, runs } from "@/db/schema";
import { setRequestStatus } from "@/lib/board/post-entry";
import { leaveNote } from "@/lib/broadcast/agent-notes";
import type { Actor, Emit } from "@/lib/events/write-room-events";

/**
 * How many times a run may be started for one piece of work: a run whose worker died is
 * claimed again up to this many times, and a request whose runs failed is served again
 * until this many have failed on it.
 */
export const MAX_RUN_ATTEMPTS = 3;

/** How a finished run ended, as the request it served needs to know. */
interface RequestOutcome {
  status: "succeeded" | "failed" | "cancelled";
  /** Why it failed or was cancelled. */
  reason: string | null;
  /** The last thing the run wrote: a help request's answer. */
  answer: string;
  at: Date;
}

/**
 * Moves on the board request a finished run was serving: answered, cancelled, or — when the
 * run failed — open again for the scheduler to serve, until `MAX_RUN_ATTEMPTS` runs have failed
 * on it and it is closed as failed. A help request is not served again: its answer, or why
 * there is none, goes back to the asker as a message (`help.answered`).
 */
export async function settleRequest(tx: DbOrTx, emit: Emit, run: Run, outcome: RequestOutcome, actor: Actor): Promise<void> {
  if (!run.requestEntryId) return;
  const [entry] = await tx.select().from(boardEntries).where(eq(boardEntries.id, run.requestEntryId));
  if (entry?.content.help === true && entry.agentId) {
    await answerHelp(tx, emit, run, outcome, actor, {
      entryId: entry.id,
      askerId: entry.agentId,
      question: String(entry.content.ask ?? ""),
    });
    return;
  }
  let status: RequestStatus = outcome.status === "succeeded" ? "answered" : "cancelled";
  if (outcome.status === "failed") {
    const [failed] = await tx
      .select({ value: count() })
      .from(runs)
      .where(and(eq(runs.requestEntryId, run.requestEntryId), eq(runs.status, "failed")));
    status = Number(failed?.value ?? 0) >= MAX_RUN_ATTEMPTS ? "failed" : "open";
  }
  await setRequestStatus(tx, emit, {
    roomId: run.roomId,
    entryId: run.requestEntryId,
    status,
    runId: run.id,
    actor,
    correlationId: run.correlationId,
  });
}

/** Sends a help request's answer, or the helper's reason for having none, to the asker. */
async function answerHelp(
  tx: DbOrTx,
  emit: Emit,
  run: Run,
  outcome: RequestOutcome,
  helper: Actor,
  request: { entryId: string; askerId: string; question: string },
): Promise<void> {
  const answer = outcome.answer.replace(/\s+/g, " ").trim();
  const answered = outcome.status === "succeeded" && answer.length > 0;
  const reason =
    outcome.status === "cancelled"
      ? "it was cancelled"
      : outcome.status === "failed"
        ? (outcome.reason ?? "its run failed")
        : "it finished without writing an answer";
  const question = request.question.length > 120 ? `${request.question.slice(0, 119)}…` : request.question;
  const text = answered
    ? `${helper.name} answered your help request ("${question}"): ${answer.slice(0, 1500)}`
    : `${helper.name} could not answer your help request ("${question}"): ${reason}`;
  await leaveNote(tx, { roomId: run.roomId, agentId: request.askerId, text, kind: "help", at: outcome.at });
  await setRequestStatus(tx, emit, {
    roomId: run.roomId,
    entryId: request.entryId,
    status: answered ? "answered" : "failed",
    runId: run.id,
    actor: helper,
    correlationId: run.correlationId,
  });
  emit({
    type: "help.answered",
    actor: helper,
    targetAgent: request.askerId,
    correlationId: run.correlationId,
    status: answered ? "success" : "error",
    payload: {
      requestEntryId: request.entryId,
      askerAgentId: request.askerId,
      helperAgentId: run.agentId,
      answered,
      text: answered ? answer.slice(0, 1500) : reason,
    },
  });
}
