import { eq } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { type RunPurpose, agents, brainstorms, buildReviews, dialogues, rooms, runs } from "@/db/schema";
import { cancelRun } from "@/lib/agents/cancel-run";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import { badRequest, conflict, notFound } from "@/lib/errors";
import { ADMIN_ACTOR, type Actor, eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import type { RunDto } from "@/lib/protocol";
import { adminActionInsert } from "./admin-actions";

async function findRun(db: Db, runId: string) {
  const [found] = await db
    .select({ run: runs, agentName: agents.name, roomTitle: rooms.title })
    .from(runs)
    .innerJoin(agents, eq(agents.id, runs.agentId))
    .innerJoin(rooms, eq(rooms.id, runs.roomId))
    .where(eq(runs.id, runId));
  if (!found) throw notFound(`Run ${runId}`);
  return found;
}

/**
 * An admin stops a run in any room (or only in `roomId`, when given): a queued one is cancelled
 * at once, a running one is stopped by its worker as soon as it hears (see `cancelRun`). The stop is
 * recorded in the room's log (`admin.action`) and the audit trail.
 */
export async function cancelRunAsAdmin(
  db: Db,
  runId: string,
  options: { roomId?: string; actor?: Actor } = {},
): Promise<{ roomId: string; outcome: "cancelled" | "stopping" }> {
  const actor = options.actor ?? ADMIN_ACTOR;
  const { run, agentName } = await findRun(db, runId);
  if (options.roomId !== undefined && run.roomId !== options.roomId) throw notFound(`Run ${runId}`);
  const outcome = await cancelRun(db, run.roomId, runId, actor);
  const summary = outcome === "cancelled" ? `Cancelled ${agentName}'s queued run` : `Stopped ${agentName}'s run`;
  await writeRoomEvents(db, run.roomId, async (tx, emit, at, defer) => {
    emit({
      type: "admin.action",
      actor,
      targetAgent: run.agentId,
      correlationId: run.correlationId,
      payload: { action: "run.cancelled", runId, agentId: run.agentId, newRunId: null, summary },
    });
    defer(
      adminActionInsert(
        tx,
        { action: "run.cancelled", roomId: run.roomId, summary, details: { runId, agentId: run.agentId, outcome } },
        at,
        actor,
      ),
    );
  });
  return { roomId: run.roomId, outcome };
}

/**
 * What a run was a step of, in words, when that has ended since (a build review closed, a dialogue
 * over, a brainstorm complete or cancelled): a step retried then would write into it all the same
 * (a new version of the code into a closed review). Null while it goes on, or is gone.
 */
async function endedPart(tx: DbOrTx, purpose: RunPurpose): Promise<string | null> {
  if ("buildReviewId" in purpose) {
    const [review] = await tx.select({ status: buildReviews.status }).from(buildReviews).where(eq(buildReviews.id, purpose.buildReviewId));
    const closed = ["approved", "not_approved", "cancelled"];
    return review && closed.includes(review.status)
      ? `a step of a build review that has closed (${review.status.replace("_", " ")})`
      : null;
  }
  if ("dialogueId" in purpose) {
    const [dialogue] = await tx.select({ status: dialogues.status }).from(dialogues).where(eq(dialogues.id, purpose.dialogueId));
    return dialogue && dialogue.status !== "open" ? `a turn of a dialogue that has ended (${dialogue.status})` : null;
  }
  const [brainstorm] = await tx.select({ status: brainstorms.status }).from(brainstorms).where(eq(brainstorms.id, purpose.brainstormId));
  return brainstorm && (brainstorm.status === "complete" || brainstorm.status === "cancelled")
    ? `a stage of a brainstorm that has ended (${brainstorm.status})`
    : null;
}

/**
 * An admin retries a failed run: a new run of the same agent is queued with the same prompt,
 * purpose (its part in a build review, a dialogue or a brainstorm), selected nodes and chain
 * depth, in the same workflow (correlation id), with the failed run as its parent. The failed
 * run stays as it was. A board request the failed run served is not served again: it was
 * settled when the run failed. A step of a build review, dialogue or brainstorm that has ended
 * since is not retried (409): the retry would write into what is closed.
 */
export async function retryRunAsAdmin(db: Db, runId: string, options: { idempotencyKey?: string; actor?: Actor } = {}): Promise<RunDto> {
  const actor = options.actor ?? ADMIN_ACTOR;
  const { run: found } = await findRun(db, runId);
  const { events } = await writeRoomEvents(
    db,
    found.roomId,
    async (tx, emit, at, defer) => {
      // Read again under the room's lock: what the run is now is what decides.
      const [failed] = await tx.select().from(runs).where(eq(runs.id, runId));
      if (!failed) throw notFound(`Run ${runId}`);
      if (failed.status !== "failed") throw badRequest(`Only a failed run can be retried; run ${runId} is ${failed.status}.`);
      const ended = failed.purpose ? await endedPart(tx, failed.purpose) : null;
      if (ended) throw conflict(`Run ${runId} was ${ended}; a retry would write into what is closed. Start a new one instead.`);
      const [agent] = await tx.select({ name: agents.name }).from(agents).where(eq(agents.id, failed.agentId));
      const retry = await enqueueRun(tx, emit, {
        roomId: failed.roomId,
        agentId: failed.agentId,
        trigger: "human",
        requestedBy: actor,
        prompt: failed.prompt,
        parentRunId: failed.id,
        chainDepth: failed.chainDepth,
        correlationId: failed.correlationId,
        selectedNodeIds: failed.selectedNodeIds,
        purpose: failed.purpose,
        taskData: failed.taskData,
        at,
      });
      const summary = `Retried ${agent?.name ?? "an agent"}'s failed run`;
      emit({
        type: "admin.action",
        actor,
        targetAgent: failed.agentId,
        correlationId: failed.correlationId,
        payload: { action: "run.retried", runId, agentId: failed.agentId, newRunId: retry.id, summary },
      });
      defer(
        adminActionInsert(
          tx,
          { action: "run.retried", roomId: failed.roomId, summary, details: { runId, newRunId: retry.id, agentId: failed.agentId } },
          at,
          actor,
        ),
      );
    },
    { idempotencyKey: options.idempotencyKey, change: { type: "run.queued", subject: runId, request: { by: actor.id, retry: runId } } },
  );
  return eventPayload(events, "run.queued").run;
}
