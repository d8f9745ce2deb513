import type { ModelMessage } from "ai";
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { type Run, type RunOpening, type RunStep, type ShownNote, runSteps, runs } from "@/db/schema";
import { cancelBroadcasts, openBroadcastsOf } from "@/lib/broadcast/end-orphaned-broadcasts";
import { type Actor, type CarriedChanges, writeRoomEvents } from "@/lib/events/write-room-events";
import type { PayloadOf } from "@/lib/protocol";

/** The run was taken over (its lease lapsed) or finished elsewhere: this worker must stop. */
export class LeaseLostError extends Error {
  constructor(runId: string) {
    super(`Run ${runId} is no longer held by this worker.`);
    this.name = "LeaseLostError";
  }
}

export interface CompletedStep {
  /** The `run.step` event's payload: what the room sees of the step. */
  summary: PayloadOf<"run.step">;
  /** What the model reads back of the step in its next call. */
  messages: ModelMessage[];
  notes: ShownNote[];
  attempt: number;
  /** Set when this step is the first this attempt saves and the run has no opening yet. */
  opening: RunOpening | null;
  /** What the step adds to the run's transcript (with the opening messages, when it saves the opening). */
  transcript: unknown[];
  /** The run's model calls not yet written, written with the step. */
  carry?: CarriedChanges;
}

/**
 * Saves a completed step with its `run.step` event, in one write: the step (so that a worker
 * taking the run over continues after it), the run's step count and transcript, and the end
 * of any question of the run that nobody waits for any more. The step's tokens and cost are
 * in the run's totals through its model call, which the step's first write carried (this one,
 * when its tools wrote nothing).
 * Only the worker holding the run's lease may save; otherwise nothing is written and
 * `LeaseLostError` is thrown, so a worker that lost its run stops instead of racing the one
 * that took it.
 */
export async function saveRunStep(db: Db, run: Run, actor: Actor, owner: string, step: CompletedStep): Promise<void> {
  const { summary } = step;
  // Behind the room lock, in its round trip: whether the lease is still held (the run's count
  // and transcript move on only if it is), and the run's questions nobody waits for.
  const holdAndOrphans = (tx: DbOrTx) =>
    Promise.all([
      tx
        .update(runs)
        .set({
          steps: sql`${runs.steps} + 1`,
          // Appended where it is stored: the transcript grows with every step, and sending it
          // whole each time made a run's writes grow with the square of its length.
          transcript: sql`${runs.transcript} || ${JSON.stringify(step.transcript)}::jsonb`,
          ...(step.opening ? { opening: step.opening } : {}),
        })
        .where(and(eq(runs.id, run.id), eq(runs.leaseOwner, owner), eq(runs.status, "running")))
        .returning({ id: runs.id }),
      openBroadcastsOf(tx, run.id),
    ]);
  await writeRoomEvents<void, Awaited<ReturnType<typeof holdAndOrphans>>>(
    db,
    run.roomId,
    async (tx, emit, at, defer, read) => {
      const [held, orphans] = read!;
      if (held.length === 0) throw new LeaseLostError(run.id);
      // A step's questions end before the step does. One still waiting was left by an earlier
      // attempt at this step whose call this attempt did not make again (or by a call that
      // failed): nobody will collect its answers.
      await cancelBroadcasts(tx, emit, orphans, at, actor);
      defer(
        tx.insert(runSteps).values({
          runId: run.id,
          step: summary.step,
          attempt: step.attempt,
          notes: step.notes,
          messages: step.messages,
          inputTokens: summary.inputTokens,
          outputTokens: summary.outputTokens,
          costUsd: summary.costUsd,
          durationMs: summary.durationMs,
          createdAt: at,
        }),
      );
      emit({
        type: "run.step",
        actor,
        correlationId: run.correlationId,
        nextSteps: summary.toolCalls.length ? ["run.step"] : ["run.finished"],
        payload: summary,
      });
    },
    { carry: step.carry, readBehindLock: holdAndOrphans },
  );
}

/** The steps a run's earlier attempts completed, in order. */
export async function loadSavedSteps(db: Db, runId: string): Promise<RunStep[]> {
  return db.select().from(runSteps).where(eq(runSteps.runId, runId)).orderBy(asc(runSteps.step));
}

/**
 * Drops the saved steps only a resumed attempt needs, once the run has ended (the write that
 * ends it clears its opening too): the run's transcript keeps what it did, and a finished
 * run is never resumed.
 */
export async function forgetSavedSteps(tx: DbOrTx, runId: string): Promise<void> {
  await tx.delete(runSteps).where(eq(runSteps.runId, runId));
}
