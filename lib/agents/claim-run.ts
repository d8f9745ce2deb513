import { randomUUID } from "node:crypto";
import { type SQL, and, asc, eq, getTableColumns, lt, or, sql } from "drizzle-orm";
import type { Db, Tx } from "@/db";
import { rowsOf } from "@/db/rows";
import { type Run, agents, rooms, runs } from "@/db/schema";
import { cancelRunBroadcasts } from "@/lib/broadcast/end-orphaned-broadcasts";
import { withCause } from "@/lib/events/cause";
import { type LockedRoom, sendNow, writeRoomEventsInTransaction } from "@/lib/events/write-room-events";
import type { ErrorDetails, LimitReachedPayload } from "@/lib/protocol";
import { runLimitReached } from "@/lib/limits/budget";
import { emitLimitReached, limitErrorDetails } from "@/lib/limits/limit-reached";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { setRequestStatus } from "@/lib/board/post-entry";
import { forgetSavedSteps } from "./save-run-step";
import { afterRunEnded } from "./finish-run";
import { MAX_RUN_ATTEMPTS } from "./settle-request";

export interface ClaimOptions {
  /** Identifies the worker holding the lease. */
  owner: string;
  leaseMs: number;
  /** A run whose lease expired this many times is given up as failed. */
  maxAttempts?: number;
}

/**
 * Runs a worker may take: queued ones whose agent is not already working (an agent runs one
 * run at a time; work for a busy agent waits for its current run), and running ones whose
 * worker died (lease expired).
 */
export const claimable = () =>
  or(
    and(
      eq(runs.status, "queued"),
      sql`not exists (select 1 from ${runs} as busy where busy.agent_id = ${runs.agentId} and busy.status = 'running' and busy.lease_expires_at >= now())`,
    ),
    and(eq(runs.status, "running"), lt(runs.leaseExpiresAt, sql`now()`)),
  );

/** How many more runs a room may start: its `max_concurrent_runs` less its running runs with live leases. */
export const freeSlots = (roomId: SQL) => sql`
  (select coalesce((settings->>'max_concurrent_runs')::int, 3) from ${rooms} where id = ${roomId})
  - (select count(*) from ${runs} where room_id = ${roomId} and status = 'running' and lease_expires_at >= now())`;

/**
 * Claims the oldest runnable run of any room whose running runs (with live leases) are
 * below its `max_concurrent_runs`. Rooms are picked among those with a free slot, so full
 * rooms with long queues cannot hide one that could start a run. A transaction-scoped
 * advisory lock per room makes the count-then-claim atomic across instances; `FOR UPDATE
 * SKIP LOCKED` keeps workers off each other's rows. Runs whose worker died (lease expired)
 * are claimed again.
 */
export async function claimNextRun(db: Db, options: ClaimOptions): Promise<Run | null> {
  const maxAttempts = options.maxAttempts ?? MAX_RUN_ATTEMPTS;
  return db.transaction(async (tx) => {
    const candidates = rowsOf<{ room_id: string }>(
      await tx.execute(sql`
        select waiting.room_id from (
          select room_id, min(created_at) as oldest from ${runs}
          where ${claimable()}
          group by room_id
        ) as waiting
        where ${freeSlots(sql`waiting.room_id`)} > 0
        order by waiting.oldest
        limit 25`),
    );
    for (const { room_id: roomId } of candidates) {
      const [lock] = rowsOf<{ locked: boolean }>(
        await tx.execute(sql`select pg_try_advisory_xact_lock(hashtextextended(${`parley-claim:${roomId}`}, 0)) as locked`),
      );
      if (!lock?.locked) continue;

      const claimed = await claimInRoom(tx, roomId, options, maxAttempts);
      if (claimed) return claimed;
    }
    return null;
  });
}

/**
 * Claims the oldest runnable run of a room. Runs that must not start again are ended on the
 * way: one whose cancel was requested (it may have been handed back, or its worker died),
 * and one whose lease lapsed too often.
 */
async function claimInRoom(tx: Tx, roomId: string, options: ClaimOptions, maxAttempts: number): Promise<Run | null> {
  // The room before the run, in the order every room write takes them (a worker saving a
  // step locks the room, then updates its run): the other order deadlocks with a worker whose
  // lease lapsed while it was saving, and PostgreSQL would abort one of the two. The look for
  // the oldest runnable run goes out in the lock's round trip, and runs once the lock is held; it
  // finds one only while the room has a free slot, counted again under the claim lock: another
  // worker may have filled the room since the rooms were picked.
  const next = () =>
    tx
      .select()
      .from(runs)
      .where(and(eq(runs.roomId, roomId), claimable(), sql`${freeSlots(sql`${roomId}`)} > 0`))
      .orderBy(asc(runs.createdAt))
      .limit(1)
      .for("update", { skipLocked: true });
  const [[room], first] = await Promise.all([
    sendNow(
      tx.select({ settings: rooms.settings, lastActivityAt: rooms.lastActivityAt }).from(rooms).where(eq(rooms.id, roomId)).for("update"),
    ),
    sendNow(next()),
  ]);
  if (!room) return null;
  const settings = parseRoomSettings(room.settings);
  // What the write that starts the run needs of the room, while nothing else has written it.
  let locked: LockedRoom | undefined = room;
  for (let candidates = first; ; candidates = await next()) {
    const [candidate] = candidates;
    if (!candidate) return null;

    if (candidate.cancelRequested) {
      await endUnclaimed(tx, candidate, "cancelled", {
        error_type: "cancelled",
        error_message: "Cancelled before it could run again.",
        retry_possible: false,
      });
      locked = undefined;
      continue;
    }
    if (candidate.status === "running" && candidate.attempts >= maxAttempts) {
      await endUnclaimed(tx, candidate, "failed", {
        error_type: "worker_lost",
        error_message: `The run's worker stopped responding ${candidate.attempts} times; giving up.`,
        retry_possible: false,
      });
      locked = undefined;
      continue;
    }

    // A run whose room, instance or workflow has spent what it may is not started (again).
    const reached = await runLimitReached(tx, candidate, settings);
    if (reached) {
      await endUnclaimed(tx, candidate, "failed", limitErrorDetails(reached), reached);
      locked = undefined;
      continue;
    }

    // The attempt's run.started descends from what queued the run (or its attempt before) and
    // is the cause of everything the attempt does.
    const startedEventId = randomUUID();
    // The run's agent's name comes back with the claimed row, in the update's round trip.
    const [row] = await tx
      .update(runs)
      .set({
        causeEventId: startedEventId,
        status: "running",
        leaseOwner: options.owner,
        leaseExpiresAt: sql`now() + ${options.leaseMs} * interval '1 millisecond'`,
        attempts: sql`${runs.attempts} + 1`,
        startedAt: sql`coalesce(${runs.startedAt}, now())`,
      })
      .where(eq(runs.id, candidate.id))
      .returning({
        ...getTableColumns(runs),
        agentName: sql<string | null>`(select ${agents.name} from ${agents} where ${agents.id} = ${runs.agentId})`,
      });
    const { agentName, ...claimed } = row!;
    const actor = { id: claimed.agentId, name: agentName ?? "Agent" };
    // What an earlier attempt asked and is still waiting on stays open: this attempt takes the
    // step that asked it again, and the same call carries on with it (see saveRunStep).
    await withCause(candidate.causeEventId, () =>
      writeRoomEventsInTransaction(
        tx,
        roomId,
        async (inner, emit, at) => {
          // The request the run answers is being worked on from now.
          if (claimed.requestEntryId) {
            await setRequestStatus(inner, emit, {
              roomId,
              entryId: claimed.requestEntryId,
              status: "in_progress",
              runId: claimed.id,
              actor,
              correlationId: claimed.correlationId,
            });
          }
          emit({
            id: startedEventId,
            causationId: candidate.causeEventId,
            type: "run.started",
            actor,
            correlationId: claimed.correlationId,
            status: "pending",
            payload: { runId: claimed.id, agentId: claimed.agentId, attempt: claimed.attempts, startedAt: at.toISOString() },
          });
        },
        { locked },
      ),
    );
    return claimed;
  }
}

/**
 * Ends a run no worker is executing, and its questions, and announces it like any finished run
 * (after the limit that stopped it, if one did).
 */
async function endUnclaimed(tx: Tx, run: Run, status: "failed" | "cancelled", error: ErrorDetails, limit?: LimitReachedPayload) {
  await tx
    .update(runs)
    .set({ status, finishedAt: sql`now()`, leaseOwner: null, leaseExpiresAt: null, streamingText: "", opening: null, error })
    .where(eq(runs.id, run.id));
  await forgetSavedSteps(tx, run.id);
  const [agent] = await tx.select({ name: agents.name }).from(agents).where(eq(agents.id, run.agentId));
  const actor = { id: run.agentId, name: agent?.name ?? "Agent" };
  await withCause(run.causeEventId, () =>
    writeRoomEventsInTransaction(tx, run.roomId, async (inner, emit, at) => {
      await afterRunEnded(inner, emit, run, { status, error, at, durationMs: 0 }, actor);
      await cancelRunBroadcasts(inner, emit, run.id, at, actor);
      if (limit) emitLimitReached(emit, actor, run.correlationId, limit);
      emit({
        type: "run.finished",
        actor,
        correlationId: run.correlationId,
        status: status === "failed" ? "error" : "success",
        errorDetails: error,
        payload: {
          runId: run.id,
          agentId: run.agentId,
          status,
          steps: run.steps,
          attempts: run.attempts,
          error,
          durationMs: 0,
          inputTokens: run.inputTokens,
          outputTokens: run.outputTokens,
          costUsd: run.costUsd,
        },
      });
    }),
  );
}

export interface HeartbeatResult {
  /** False when another worker took the run over or it was finished elsewhere. */
  held: boolean;
  cancelRequested: boolean;
}

/** Extends a run's lease; tells the worker whether it still owns the run and whether to stop. */
export async function heartbeatRun(db: Db, runId: string, owner: string, leaseMs: number): Promise<HeartbeatResult> {
  const [row] = await db
    .update(runs)
    .set({ leaseExpiresAt: sql`now() + ${leaseMs} * interval '1 millisecond'` })
    .where(and(eq(runs.id, runId), eq(runs.leaseOwner, owner), eq(runs.status, "running")))
    .returning({ cancelRequested: runs.cancelRequested });
  return row ? { held: true, cancelRequested: row.cancelRequested } : { held: false, cancelRequested: false };
}

/** Gives a run back to the queue (its worker is shutting down) so another worker starts it at once. */
export async function releaseRun(db: Db, runId: string, owner: string): Promise<void> {
  await db
    .update(runs)
    .set({ status: "queued", leaseOwner: null, leaseExpiresAt: null })
    .where(and(eq(runs.id, runId), eq(runs.leaseOwner, owner), eq(runs.status, "running")));
}
