import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { rowsOf } from "@/db/rows";
import { instanceSettings, runs, spendReservations } from "@/db/schema";
import { type Env, getEnv } from "@/lib/env";
import { costOf } from "@/lib/models/pricing";
import type { LimitName, LimitReachedPayload } from "@/lib/protocol";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import { budgetPeriods, dollars, passes, roomDailyLimits, todayOf, tokens, workflowCostCap, workflowSpendingQuery } from "./budget";
import { instanceLimitsFrom } from "./instance-budgets";

/** The most one model call can spend: its input as sent plus its output-token limit, at its model's prices. */
export interface CallWorstCase {
  inputTokens: number;
  outputTokens: number;
  tokens: number;
  costUsd: number;
}

export function callWorstCase(modelSpec: string, inputTokens: number, outputTokens: number): CallWorstCase {
  return { inputTokens, outputTokens, tokens: inputTokens + outputTokens, costUsd: costOf(modelSpec, inputTokens, outputTokens) };
}

/** The run a call is made for, under the lease its worker holds. */
export interface ReservingRun {
  id: string;
  roomId: string;
  agentId: string;
  correlationId: string;
  /** The lease the worker holds the run under: the reservation lapses with it. */
  leaseOwner: string;
  agentName: string;
}

export type Reservation = { reservationId: string; refused?: undefined } | { reservationId?: undefined; refused: LimitReachedPayload };

/** One key for every reservation on the database: each reads and adds to the same sums. */
const RESERVE_LOCK = sql`hashtextextended('parley-spend-reservations', 0)`;

type Figures = { tokens: number | string; cost: number | string } | null;

/**
 * Reserves what a model call can spend at most against every budget that applies to it — the
 * instance's and the room's for today, the workflow's cap — before the call is made. One
 * transaction under one advisory lock shared by every instance: it reads what was spent and
 * what every other call under way holds (in one statement, so a call being settled meanwhile is
 * counted once, either as its reservation or as its usage), and adds the reservation only when
 * it fits beside them all. A call that would bring a budget exactly to its limit fits. When one
 * does not fit, nothing is reserved and the `limit.reached` that stops the run comes back.
 */
export async function reserveSpend(
  db: Db,
  run: ReservingRun,
  worst: CallWorstCase,
  settings: RoomSettings,
  now: Date = new Date(),
  env: Env = getEnv(),
): Promise<Reservation> {
  const day = budgetPeriods(now).dayStart.toISOString();
  const resetsAt = budgetPeriods(now).dayEnd.toISOString();
  const roomLimits = roomDailyLimits(settings, env);
  const cap = workflowCostCap(settings, env);
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${RESERVE_LOCK})`);
    const [row] = rowsOf<{ stored: Record<string, unknown>; room: Figures; instance: Figures; workflow: { cost: number | string } | null }>(
      await tx.execute(sql`
        with stored as (
          select name, value from ${instanceSettings} where name in ('daily_token_budget', 'daily_cost_budget_usd')
        )
        select
          (select coalesce(jsonb_object_agg(name, value), '{}'::jsonb) from stored) as stored,
          ${todayOf(day, run.roomId)} as room,
          ${todayOf(day, null)} as instance,
          ${cap > 0 ? workflowSpendingQuery(run.roomId, run.correlationId) : sql`null::jsonb`} as workflow`),
    );
    const instanceLimits = instanceLimitsFrom(row?.stored ?? {}, env);
    const used = (figures: Figures) => ({ tokens: Number(figures?.tokens ?? 0), costUsd: Number(figures?.cost ?? 0) });
    const room = used(row?.room ?? null);
    const instance = used(row?.instance ?? null);
    const checks: [LimitName, number, number, string][] = [
      ["room_daily_tokens", roomLimits.tokens, room.tokens, "this room's daily token budget"],
      ["room_daily_cost", roomLimits.costUsd, room.costUsd, "this room's daily cost budget"],
      ["instance_daily_tokens", instanceLimits.tokens, instance.tokens, "this server's daily token budget"],
      ["instance_daily_cost", instanceLimits.costUsd, instance.costUsd, "this server's daily cost budget"],
    ];
    if (cap > 0) checks.push(["workflow_cost", cap, Number(row?.workflow?.cost ?? 0), "this workflow's cost cap"]);
    for (const [limit, allowed, usedSoFar, what] of checks) {
      if (allowed <= 0) continue;
      const isCost = limit !== "room_daily_tokens" && limit !== "instance_daily_tokens";
      const call = isCost ? worst.costUsd : worst.tokens;
      if (call <= 0 || !passes(usedSoFar + call, allowed)) continue;
      return { refused: refusal(run, worst, { limit, allowed, used: usedSoFar, call, what, isCost, resetsAt }) };
    }
    await sweepLapsedReservations(tx);
    const reservationId = randomUUID();
    await tx.insert(spendReservations).values({
      id: reservationId,
      runId: run.id,
      leaseOwner: run.leaseOwner,
      roomId: run.roomId,
      correlationId: run.correlationId,
      tokens: worst.tokens,
      costUsd: worst.costUsd,
    });
    return { reservationId };
  });
}

function refusal(
  run: ReservingRun,
  worst: CallWorstCase,
  check: { limit: LimitName; allowed: number; used: number; call: number; what: string; isCost: boolean; resetsAt: string },
): LimitReachedPayload {
  const amount = check.isCost ? dollars : tokens;
  const call = `${run.agentName}'s next model call could take up to ${amount(check.call)} (${worst.inputTokens.toLocaleString("en-US")} tokens of input as sent and an output limit of ${worst.outputTokens.toLocaleString("en-US")})`;
  const workflow = check.limit === "workflow_cost";
  const left = Math.max(0, check.allowed - check.used);
  const leftOf = check.isCost
    ? `${dollars(left)} of ${dollars(check.allowed)}`
    : `${Math.round(left).toLocaleString("en-US")} of ${tokens(check.allowed)}`;
  const outcome = workflow
    ? "It is not made, and the workflow's agents stop here; other workflows go on."
    : "It is not made and the run stops here; the budget is whole again at midnight UTC.";
  return {
    limit: check.limit,
    runId: run.id,
    agentId: run.agentId,
    message: `${call}, more than ${check.what} has (${leftOf} left, counting the calls under way). ${outcome}`,
    used: check.used,
    allowed: check.allowed,
    expected: check.call,
    resetsAt: workflow ? null : check.resetsAt,
  };
}

/** Gives back a reservation whose call spent nothing it could report (it failed, or was never made). */
export async function releaseReservation(db: DbOrTx, reservationId: string): Promise<void> {
  await db.delete(spendReservations).where(eq(spendReservations.id, reservationId));
}

/** Gives back whatever a run's attempt still holds once it ends; its recorded calls replaced theirs already. */
export async function releaseRunReservations(db: DbOrTx, runId: string, leaseOwner: string): Promise<void> {
  await db.execute(sql`delete from ${spendReservations} where run_id = ${runId} and lease_owner = ${leaseOwner}`);
}

/** Reservations no live lease holds any more, swept now and then: they count for nothing already. */
async function sweepLapsedReservations(db: DbOrTx): Promise<void> {
  await db.execute(sql`delete from ${spendReservations} s where not exists (
    select 1 from ${runs} r where r.id = s.run_id and r.status = 'running' and r.lease_owner = s.lease_owner and r.lease_expires_at > now())`);
}
