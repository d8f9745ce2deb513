import { type SQL, eq, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { runModelCalls, runs, spendReservations } from "@/db/schema";
import type { CarriedChanges } from "@/lib/events/write-room-events";
import { addUsage } from "@/lib/usage/record-usage";

export interface ModelCallUsage {
  /** The attempt that made the call, and the call's number within it. */
  attempt: number;
  call: number;
  step: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** What the call held against the budgets while it was under way: its usage replaces it. */
  reservationId?: string;
}

/**
 * One statement that records model calls of a run and adds them to the run's totals and to the
 * instance's usage by hour, settling the reservations the calls held. Only the run's row is locked: a room write that carries it has
 * locked the room first, as every room write does before it touches a run, so it cannot
 * deadlock with them.
 */
function recordCalls(runId: string, calls: ModelCallUsage[]): SQL {
  const sum = (pick: (call: ModelCallUsage) => number) => calls.reduce((total, call) => total + pick(call), 0);
  const insert = sql`insert into ${runModelCalls} ${sql.raw("(run_id, attempt, call, step, input_tokens, output_tokens, cost_usd)")} values ${sql.join(
    calls.map(
      (call) => sql`(${runId}, ${call.attempt}, ${call.call}, ${call.step}, ${call.inputTokens}, ${call.outputTokens}, ${call.costUsd})`,
    ),
    sql`, `,
  )}`;
  const usage = addUsage(
    { runId },
    {
      calls: calls.length,
      inputTokens: sum((call) => call.inputTokens),
      outputTokens: sum((call) => call.outputTokens),
      costUsd: sum((call) => call.costUsd),
    },
  );
  const reservations = calls.flatMap((call) => (call.reservationId ? [call.reservationId] : []));
  // The reservation goes in the statement that counts the usage: no check ever sees both, or neither.
  const settle =
    reservations.length > 0
      ? sql`, settled as (delete from ${spendReservations} where id in (${sql.join(
          reservations.map((id) => sql`${id}`),
          sql`, `,
        )}))`
      : sql``;
  return sql`with recorded as (${insert}), usage as (${usage})${settle} update ${runs} set
    input_tokens = ${runs.inputTokens} + ${sum((call) => call.inputTokens)},
    output_tokens = ${runs.outputTokens} + ${sum((call) => call.outputTokens)},
    cost_usd = ${runs.costUsd} + ${sum((call) => call.costUsd)}
    where ${eq(runs.id, runId)}`;
}

/**
 * The model calls of a running run that returned usage and are not written yet. The run's next
 * room write carries them (`carry`), so a call's tokens and cost commit with the first thing its
 * step writes — a node, the step itself — and no write waits for a commit of its own. What is
 * still pending when the run stops without a write of its own is written by `flush`.
 *
 * Not fenced by the lease: a worker that lost the run has still spent what its calls cost. Its
 * calls are keyed by its own attempt, and the totals only ever grow by a call's own figures, so
 * it cannot change what the attempt that took over records.
 */
export class PendingModelCalls implements CarriedChanges {
  private pending: ModelCallUsage[] = [];
  /** How many writes have asked for the calls so far: tells a batch given back whether others went by meanwhile. */
  private asked = 0;
  private readonly writing = new Set<Promise<void>>();

  /** `database` is read only when calls are written on their own. */
  constructor(
    private readonly runId: string,
    private readonly database: Pick<Database, "db">,
  ) {}

  add(call: ModelCallUsage): void {
    this.pending.push(call);
  }

  get size(): number {
    return this.pending.length;
  }

  take(): { change: SQL; giveBack(): void } | null {
    this.asked += 1;
    if (this.pending.length === 0) return null;
    const calls = this.pending;
    const askedAt = this.asked;
    this.pending = [];
    return {
      change: recordCalls(this.runId, calls),
      giveBack: () => {
        this.pending = [...calls, ...this.pending];
        // Writes that started while these were out went without them, and the run's next write
        // may be a long way off (a step waiting on a question to the room): written now instead.
        if (this.asked !== askedAt) this.writeSoon();
      },
    };
  }

  private writeSoon(): void {
    const writing: Promise<void> = this.flush().catch(() => {});
    this.writing.add(writing);
    void writing.finally(() => this.writing.delete(writing));
  }

  /** Writes what no room write carried. */
  async flush(): Promise<void> {
    const taken = this.take();
    if (!taken) return;
    try {
      await this.database.db.execute(taken.change);
    } catch (error) {
      taken.giveBack();
      throw error;
    }
  }

  /** Resolves once the calls given back and being written on their own are written (or given back again). */
  async settled(): Promise<void> {
    while (this.writing.size > 0) await Promise.all([...this.writing]);
  }
}
