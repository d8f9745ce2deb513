import { and, count, countDistinct, eq, gt, gte, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db";
import { rowsOf } from "@/db/rows";
import { presence, rooms, runs, usageHourly } from "@/db/schema";
import type { Allowance } from "@/lib/limits/budget";
import { readInstanceBudgets } from "@/lib/limits/instance-budgets";
import { type Spend, calendarStarts, dailyAllowances, readSpend } from "@/lib/usage/read-spend";
import { countActiveRuns } from "./admin-runs";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A live connection not refreshed for this long is not counted (as `countPresence` does). */
const PRESENCE_STALE_MS = 45_000;
/** Series a chart shows on their own; the rest are added up as "Other". */
const TOP_SERIES = 6;

/** What the charts span and how finely: a day by the hour, a week by six hours, thirty days by the day. */
const RANGES = {
  day: { spanMs: DAY, bucketMs: HOUR },
  week: { spanMs: 7 * DAY, bucketMs: 6 * HOUR },
  month: { spanMs: 30 * DAY, bucketMs: DAY },
} as const;

export const overviewQuerySchema = z.strictObject({
  range: z.enum(["day", "week", "month"]).default("week"),
});
export type OverviewQuery = z.infer<typeof overviewQuerySchema>;

/** One line of a chart: a model, or an agent identity (the same persona across rooms). */
export interface UsageSeries {
  key: string;
  label: string;
  tokens: number[];
  costUsd: number[];
}

export interface Overview {
  generatedAt: string;
  rooms: { total: number; activeToday: number };
  watching: { connections: number; rooms: number };
  runs: { queued: number; running: number; failedToday: number };
  spend: { today: Spend; week: Spend };
  /** Today's instance budgets (UTC day): the limits and what they leave. */
  budget: { tokens: Allowance; costUsd: Allowance };
  /** When "today" and "this week" (from Monday) started: UTC days, as the budgets count them. */
  todayStartedAt: string;
  weekStartedAt: string;
  usage: { range: OverviewQuery["range"]; bucketMs: number; buckets: string[]; byModel: UsageSeries[]; byAgent: UsageSeries[] };
}

interface Point {
  /** The bucket's start, in milliseconds since 1970. */
  bucket: number;
  key: string;
  label: string;
  tokens: number;
  costUsd: number;
}

/** Pivots points into one series per key over `buckets`, the biggest spenders on their own and the rest as "Other". */
export function toSeries(points: Point[], buckets: number[]): UsageSeries[] {
  const index = new Map(buckets.map((start, position) => [start, position]));
  const byKey = new Map<string, UsageSeries & { total: number; totalTokens: number }>();
  for (const point of points) {
    const position = index.get(Number(point.bucket));
    if (position === undefined) continue;
    let series = byKey.get(point.key);
    if (!series) {
      series = {
        key: point.key,
        label: point.label,
        tokens: buckets.map(() => 0),
        costUsd: buckets.map(() => 0),
        total: 0,
        totalTokens: 0,
      };
      byKey.set(point.key, series);
    }
    series.tokens[position]! += Number(point.tokens);
    series.costUsd[position]! += Number(point.costUsd);
    series.total += Number(point.costUsd);
    series.totalTokens += Number(point.tokens);
  }
  const ranked = [...byKey.values()].sort((a, b) => b.total - a.total || b.totalTokens - a.totalTokens || a.key.localeCompare(b.key));
  const shown = ranked.slice(0, TOP_SERIES);
  const rest = ranked.slice(TOP_SERIES);
  // Two agents can share a name (a template's and an imported team's): their identities tell them apart.
  const names = new Map<string, number>();
  for (const series of shown) names.set(series.label, (names.get(series.label) ?? 0) + 1);
  const result: UsageSeries[] = shown.map(({ key, label, tokens, costUsd }) => ({
    key,
    label: names.get(label)! > 1 ? `${label} (${key})` : label,
    tokens,
    costUsd,
  }));
  if (rest.length > 0) {
    result.push({
      key: "other",
      label: `Other (${rest.length})`,
      tokens: buckets.map((_, position) => rest.reduce((sum, series) => sum + series.tokens[position]!, 0)),
      costUsd: buckets.map((_, position) => rest.reduce((sum, series) => sum + series.costUsd[position]!, 0)),
    });
  }
  return result;
}

/**
 * Tokens and cost by bucket, by model and by agent identity, in one pass over the range's rows.
 * The buckets are grouped as timestamps and turned into numbers only once grouped: the drivers
 * return a computed timestamp in different forms, and converting every row first costs more
 * than the grouping.
 */
async function usageByBucket(database: Database, since: Date, bucketMs: number): Promise<{ byModel: Point[]; byAgent: Point[] }> {
  const rows = rowsOf<{
    bucket: number | string;
    model: string | null;
    identity: string | null;
    name: string | null;
    tokens: number | string;
    cost: number | string;
  }>(
    await database.db.execute(sql`
      select (extract(epoch from bucket) * 1000)::float8 as bucket, model, identity, name, tokens, cost from (
        select bucket, model, identity, max(agent_name) as name,
          sum(input_tokens + output_tokens)::float8 as tokens, sum(cost_usd)::float8 as cost
        from (
          select date_bin(${`${bucketMs / 1000} seconds`}::interval, ${usageHourly.hour}, timestamptz '1970-01-01T00:00:00Z') as bucket,
            ${usageHourly.model} as model, ${usageHourly.identity} as identity, ${usageHourly.agentName} as agent_name,
            ${usageHourly.inputTokens} as input_tokens, ${usageHourly.outputTokens} as output_tokens, ${usageHourly.costUsd} as cost_usd
          from ${usageHourly} where ${usageHourly.hour} >= ${since.toISOString()}::timestamptz
        ) as spent
        group by grouping sets ((bucket, model), (bucket, identity))
      ) as grouped`),
  );
  const point = (row: (typeof rows)[number], key: string, label: string): Point => ({
    bucket: Number(row.bucket),
    key,
    label,
    tokens: Number(row.tokens),
    costUsd: Number(row.cost),
  });
  return {
    byModel: rows.filter((row) => row.model !== null).map((row) => point(row, row.model!, row.model!)),
    byAgent: rows.filter((row) => row.identity !== null).map((row) => point(row, row.identity!, row.name ?? row.identity!)),
  };
}

/**
 * The instance at a glance: rooms, people watching, runs queued and running, tokens and cost
 * today and this week, and tokens and cost over the range by model and by agent. Reads the
 * hourly usage table, never the runs or their model calls, so it costs the same however many
 * runs there were.
 */
export async function readOverview(database: Database, query: OverviewQuery, now: Date = new Date()): Promise<Overview> {
  const db = database.db;
  const { spanMs, bucketMs } = RANGES[query.range];
  const { today, week } = calendarStarts(now);
  // Buckets line up with midnight UTC; the last one holds now.
  const end = Math.floor(now.getTime() / bucketMs) * bucketMs;
  const first = end - Math.ceil(spanMs / bucketMs - 1) * bucketMs;
  const buckets: number[] = [];
  for (let start = first; start <= end; start += bucketMs) buckets.push(start);
  const rangeStart = new Date(first);

  const [usage, spend, instanceBudgets, roomCounts, watching, active, failed] = await Promise.all([
    usageByBucket(database, rangeStart, bucketMs),
    readSpend(db, now),
    readInstanceBudgets(db),
    db
      .select({
        total: count(),
        activeToday: sql<number>`(count(*) filter (where ${rooms.lastActivityAt} >= ${today.toISOString()}::timestamptz))::int`,
      })
      .from(rooms),
    db
      .select({ connections: count(), rooms: countDistinct(presence.roomId) })
      .from(presence)
      .where(gt(presence.lastSeenAt, new Date(now.getTime() - PRESENCE_STALE_MS))),
    countActiveRuns(db),
    db
      .select({ count: count() })
      .from(runs)
      .where(and(eq(runs.status, "failed"), gte(runs.createdAt, today))),
  ]);
  return {
    generatedAt: now.toISOString(),
    rooms: { total: Number(roomCounts[0]?.total ?? 0), activeToday: Number(roomCounts[0]?.activeToday ?? 0) },
    watching: { connections: Number(watching[0]?.connections ?? 0), rooms: Number(watching[0]?.rooms ?? 0) },
    runs: { ...active, failedToday: Number(failed[0]?.count ?? 0) },
    spend,
    budget: dailyAllowances(instanceBudgets.limits, spend.today),
    todayStartedAt: today.toISOString(),
    weekStartedAt: week.toISOString(),
    usage: {
      range: query.range,
      bucketMs,
      buckets: buckets.map((start) => new Date(start).toISOString()),
      byModel: toSeries(usage.byModel, buckets),
      byAgent: toSeries(usage.byAgent, buckets),
    },
  };
}
