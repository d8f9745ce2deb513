import { and, eq, gte, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { usageHourly } from "@/db/schema";
import { type Allowance, allowance, budgetPeriods } from "@/lib/limits/budget";

/** Model calls, tokens and US dollars spent. */
export interface Spend {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** The start of the UTC day and week (from Monday) holding `now`: the budgets' calendar. */
export function calendarStarts(now: Date): { today: Date; week: Date } {
  const { dayStart, weekStart } = budgetPeriods(now);
  return { today: dayStart, week: weekStart };
}

/**
 * What the instance's agents (or one room's) spent today and this week, from the agent-hour rows:
 * one range of the hour (or room and hour) index, however many calls there were. What a deleted
 * room spent still counts for the instance.
 */
export async function readSpend(db: Db, now: Date, roomId?: string): Promise<{ today: Spend; week: Spend }> {
  const { today, week } = calendarStarts(now);
  const since = (
    start: Date,
    column: typeof usageHourly.calls | typeof usageHourly.inputTokens | typeof usageHourly.outputTokens | typeof usageHourly.costUsd,
  ) => sql<number>`coalesce(sum(${column}) filter (where ${usageHourly.hour} >= ${start.toISOString()}::timestamptz), 0)::float8`;
  const [row] = await db
    .select({
      todayCalls: since(today, usageHourly.calls),
      todayInput: since(today, usageHourly.inputTokens),
      todayOutput: since(today, usageHourly.outputTokens),
      todayCost: since(today, usageHourly.costUsd),
      weekCalls: since(week, usageHourly.calls),
      weekInput: since(week, usageHourly.inputTokens),
      weekOutput: since(week, usageHourly.outputTokens),
      weekCost: since(week, usageHourly.costUsd),
    })
    .from(usageHourly)
    .where(and(gte(usageHourly.hour, week), roomId === undefined ? undefined : eq(usageHourly.roomId, roomId)));
  const number = (value: number | undefined) => Number(value ?? 0);
  return {
    today: {
      calls: number(row?.todayCalls),
      inputTokens: number(row?.todayInput),
      outputTokens: number(row?.todayOutput),
      costUsd: number(row?.todayCost),
    },
    week: {
      calls: number(row?.weekCalls),
      inputTokens: number(row?.weekInput),
      outputTokens: number(row?.weekOutput),
      costUsd: number(row?.weekCost),
    },
  };
}

/** Today's allowances for daily limits (0: none) against what was spent today. */
export function dailyAllowances(limits: { tokens: number; costUsd: number }, today: Spend): { tokens: Allowance; costUsd: Allowance } {
  return { tokens: allowance(limits.tokens, today.inputTokens + today.outputTokens), costUsd: allowance(limits.costUsd, today.costUsd) };
}
