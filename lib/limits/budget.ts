import { type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { rowsOf } from "@/db/rows";
import { agents, broadcastResponses, broadcasts, instanceSettings, runModelCalls, runs, spendReservations, usageHourly } from "@/db/schema";
import { type Env, getEnv } from "@/lib/env";
import { type AppError, tooManyRequests } from "@/lib/errors";
import { costOf } from "@/lib/models/pricing";
import type { LimitName, LimitReachedPayload, RoomBudgetDto } from "@/lib/protocol";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import { instanceLimitsFrom } from "./instance-budgets";

/** Tokens (input and output) and US dollars spent. */
interface Usage {
  tokens: number;
  costUsd: number;
}

/** One limit: what it allows (null: no limit), what was used against it, what is left (null: no limit). */
export interface Allowance {
  limit: number | null;
  used: number;
  left: number | null;
}

interface ScopeBudget {
  /**
   * What was spent today (UTC), counting what the model calls under way hold. Read only for a
   * scope with a daily limit; one without any reads as nothing spent, as nothing is checked against it.
   */
  today: Usage;
  /** Today's allowances. */
  daily: { tokens: Allowance; costUsd: Allowance };
}

/**
 * What today's budgets leave the instance and a room. Only today: the checks before a run and a
 * step need nothing else, and the dashboard reads the week's spending with the rest of its
 * figures (`readSpend`).
 */
export interface Budgets {
  /** Today, UTC: `[start, end)` as ISO strings. */
  day: { start: string; end: string };
  instance: ScopeBudget;
  room: (ScopeBudget & { roomId: string }) | null;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC day `at` falls in, and the week (Monday to Sunday, UTC) it belongs to. */
export function budgetPeriods(at: Date) {
  const dayStart = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const sinceMonday = (dayStart.getUTCDay() + 6) % 7;
  const weekStart = new Date(dayStart.getTime() - sinceMonday * DAY_MS);
  return {
    dayStart,
    dayEnd: new Date(dayStart.getTime() + DAY_MS),
    weekStart,
    weekEnd: new Date(weekStart.getTime() + 7 * DAY_MS),
  };
}

/** A room's daily limits: its own settings, else the instance's defaults for every room. 0 means none. */
export function roomDailyLimits(settings: Pick<RoomSettings, "daily_token_budget" | "daily_cost_budget_usd">, env: Env = getEnv()) {
  return {
    tokens: settings.daily_token_budget ?? env.PARLEY_ROOM_DAILY_TOKENS,
    costUsd: settings.daily_cost_budget_usd ?? env.PARLEY_ROOM_DAILY_COST_USD,
  };
}

/** What one workflow may spend on model calls; 0 means no cap. */
export function workflowCostCap(settings: Pick<RoomSettings, "workflow_cost_cap_usd">, env: Env = getEnv()): number {
  return settings.workflow_cost_cap_usd ?? env.PARLEY_WORKFLOW_COST_USD;
}

/** A daily limit (0: none) against what was used of it. */
export function allowance(limit: number, used: number): Allowance {
  return limit > 0 ? { limit, used, left: Math.max(0, limit - used) } : { limit: null, used, left: null };
}

function scope(today: Usage, limits: { tokens: number; costUsd: number }): ScopeBudget {
  return { today, daily: { tokens: allowance(limits.tokens, today.tokens), costUsd: allowance(limits.costUsd, today.costUsd) } };
}

/**
 * Dollars are added up in floating point (0.01 + 0.005 + 0.005 is 0.020000000000000004): amounts
 * closer than this are the same, so a call that would bring spending exactly to a limit is not
 * taken for one that passes it.
 */
const SAME_AMOUNT = 1e-9;

/** Whether `amount` has reached `limit`, up to how precisely dollars add up. */
function reaches(amount: number, limit: number): boolean {
  return amount >= limit - SAME_AMOUNT;
}

/** Whether `amount` goes past `limit`, up to how precisely dollars add up. */
export function passes(amount: number, limit: number): boolean {
  return amount > limit + SAME_AMOUNT;
}

export function dollars(amount: number): string {
  return `$${amount.toFixed(amount >= 0.1 ? 2 : 4)}`;
}

export function tokens(amount: number): string {
  return `${Math.round(amount).toLocaleString("en-US")} tokens`;
}

/** What a run, or the rest of one, is expected to spend before it is started or takes its next step. */
interface ExpectedSpend {
  tokens: number;
  costUsd: number;
  /** Whose run it is, as the room is told. */
  agentName: string;
  /** What the figure rests on, in words: "the average of its last 10 runs". */
  basis: string;
  /** Whether the run has begun (the figure is for its next step) or not (for the whole run). */
  next: "run" | "step";
}

/** How many of the latest successful runs an estimate averages. */
const ESTIMATE_RUNS = 10;

type EstimateScope = "agent" | "room";

/** The average tokens in and out of the latest successful runs that used any, of an agent or of its room. */
async function averageRun(db: DbOrTx, scope: EstimateScope, agent: { id: string; roomId: string }) {
  const where = scope === "agent" ? sql`${runs.agentId} = ${agent.id}` : sql`${runs.roomId} = ${agent.roomId}`;
  const [row] = rowsOf<{ runs: number | string; input: number | string | null; output: number | string | null }>(
    await db.execute(sql`
      select count(*) as runs, avg(input_tokens) as input, avg(output_tokens) as output from (
        select ${runs.inputTokens} as input_tokens, ${runs.outputTokens} as output_tokens from ${runs}
        where ${where} and ${runs.status} = 'succeeded' and ${runs.inputTokens} + ${runs.outputTokens} > 0
        order by ${runs.createdAt} desc limit ${ESTIMATE_RUNS}
      ) as recent`),
  );
  const count = Number(row?.runs ?? 0);
  return count > 0 ? { runs: count, input: Number(row!.input), output: Number(row!.output) } : null;
}

/**
 * What a run of `agent` that has not begun is expected to spend: the average of the agent's last
 * ten successful runs, or, for an agent with none yet, of its room's; its tokens as they were
 * used, priced at the agent's model now (so a model switched since costs what it costs now). Not
 * the caps (steps a run may take times the context and output it may use): runs seldom come near
 * them, and a budget held against them would refuse runs that fit. With no run in the room to go
 * by (a fresh instance, or a room whose runs a budget stopped), the least its first model call
 * reserves: its output limit. Other rooms' runs say nothing about this one's agents.
 */
async function expectedRunSpend(
  db: DbOrTx,
  agent: { id: string; roomId: string; name: string; model: string },
  env: Env,
): Promise<ExpectedSpend> {
  for (const scope of ["agent", "room"] as const) {
    const average = await averageRun(db, scope, agent);
    if (average) return spendOfAverage(agent, scope, average);
  }
  const [row] = await db.select({ options: agents.modelOptions }).from(agents).where(sql`${agents.id} = ${agent.id}`);
  return firstCallSpend(agent, outputLimitOf(row?.options ?? {}, env));
}

/** The output-token limit of an agent's model calls: its own `maxOutputTokens`, else the instance's. */
function outputLimitOf(options: unknown, env: Env): number {
  const own = typeof options === "object" && options !== null ? (options as { maxOutputTokens?: unknown }).maxOutputTokens : undefined;
  return typeof own === "number" && Number.isInteger(own) && own > 0 ? own : env.PARLEY_MAX_OUTPUT_TOKENS;
}

/** What a run with nothing to go by takes at least: its first call's output limit, at the agent's model's prices. */
function firstCallSpend(agent: { name: string; model: string }, outputLimit: number): ExpectedSpend {
  return {
    tokens: outputLimit,
    costUsd: costOf(agent.model, 0, outputLimit),
    agentName: agent.name,
    basis: `the output limit its first model call is held to, as neither ${agent.name} nor this room has a run to go by`,
    next: "run",
  };
}

/** A whole run's expected spend from the average of recent runs of `scope`, priced at the agent's model now. */
function spendOfAverage(
  agent: { name: string; model: string },
  scope: EstimateScope,
  average: { runs: number; input: number; output: number },
): ExpectedSpend {
  const whose = scope === "agent" ? "its" : "this room's";
  const runsWord = average.runs === 1 ? "run" : `${average.runs} runs`;
  return {
    tokens: average.input + average.output,
    costUsd: costOf(agent.model, average.input, average.output),
    agentName: agent.name,
    basis: `the average of ${whose} last ${runsWord}${scope === "agent" ? "" : `, as ${agent.name} has no run of its own yet`}`,
    next: "run",
  };
}

/**
 * The first of today's budgets that is spent, or that `expected` would go past, as the room is
 * told it; null while each has room for it. A budget is spent once what was used reaches it (the
 * call that crossed it was already made, and no further one is); a run or step that would take
 * it past its limit is not started, however much is left.
 */
function budgetReached(
  budgets: Budgets,
  subject: { runId: string | null; agentId: string | null },
  expected: ExpectedSpend | null = null,
): LimitReachedPayload | null {
  const checks: [LimitName, Allowance, string][] = [
    ...(budgets.room
      ? ([
          ["room_daily_tokens", budgets.room.daily.tokens, "this room's daily token budget"],
          ["room_daily_cost", budgets.room.daily.costUsd, "this room's daily cost budget"],
        ] as [LimitName, Allowance, string][])
      : []),
    ["instance_daily_tokens", budgets.instance.daily.tokens, "this server's daily token budget"],
    ["instance_daily_cost", budgets.instance.daily.costUsd, "this server's daily cost budget"],
  ];
  for (const [limit, { limit: allowed, used }, what] of checks) {
    if (allowed === null) continue;
    const isCost = limit.endsWith("_cost");
    const amount = isCost ? dollars : tokens;
    const reached = { limit, ...subject, used, allowed, resetsAt: budgets.day.end };
    const usedOf = isCost
      ? `${dollars(used)} of ${dollars(allowed)}`
      : `${used.toLocaleString("en-US")} of ${allowed.toLocaleString("en-US")} tokens`;
    if (reaches(used, allowed)) {
      return {
        ...reached,
        message: `${what.charAt(0).toUpperCase()}${what.slice(1)} is spent (${usedOf} used today); agents start again after midnight UTC.`,
      };
    }
    const next = expected ? (isCost ? expected.costUsd : expected.tokens) : 0;
    if (!expected || next <= 0 || !passes(used + next, allowed)) continue;
    const whose = expected.next === "run" ? `A run of ${expected.agentName}` : `${expected.agentName}'s next step`;
    const figures = `${usedOf} used today, ${amount(allowed - used)} left; ${expected.next === "run" ? "a run" : "its next step"} takes about ${amount(next)} (${expected.basis})`;
    const outcome = expected.next === "run" ? "It is not started" : "The run stops here";
    return {
      ...reached,
      expected: next,
      message: `${whose} would go past ${what}: ${figures}. ${outcome}; the budget is whole again at midnight UTC.`,
    };
  }
  return null;
}

/**
 * What a workflow has spent on model calls (its runs' calls, and the shadows' answers to its
 * questions that were kept), and its most expensive call so far: the estimate of what its next
 * call costs (each step reads the conversation so far, so calls rarely get cheaper).
 */
async function workflowSpending(db: DbOrTx, roomId: string, correlationId: string): Promise<{ costUsd: number; largestCallUsd: number }> {
  const [row] = rowsOf<{ spent: { cost: number | string; largest: number | string } | null }>(
    await db.execute(sql`select ${workflowSpendingQuery(roomId, correlationId)} as spent`),
  );
  return { costUsd: Number(row?.spent?.cost ?? 0), largestCallUsd: Number(row?.spent?.largest ?? 0) };
}

/**
 * What the model calls under way hold against the budgets (`spend_reservations`) among those
 * `where` picks (the reservation is `s`), as JSON `{ tokens, cost }`. A reservation counts only
 * while its run is still running under the lease that made it: one a crashed worker left lapses
 * with its lease, and one whose call was recorded is gone already.
 */
function reservedOf(where: SQL) {
  return sql`(select jsonb_build_object('tokens', coalesce(sum(s.tokens), 0), 'cost', coalesce(sum(s.cost_usd), 0))
    from ${spendReservations} s join ${runs} r on r.id = s.run_id
    where r.status = 'running' and r.lease_owner = s.lease_owner and r.lease_expires_at > now() and ${where})`;
}

/** `workflowSpending` as a subquery giving `{ cost, largest }` as JSON: cost counts the calls under way at their reservations. */
export function workflowSpendingQuery(roomId: string, correlationId: string) {
  return sql`(select jsonb_build_object(
        'cost', coalesce(sum(spent.cost), 0) + (${reservedOf(sql`s.room_id = ${roomId} and s.correlation_id = ${correlationId}`)} ->> 'cost')::float8,
        'largest', coalesce(max(spent.cost), 0)) from (
        select c.cost_usd as cost
        from ${runs} join ${runModelCalls} c on c.run_id = ${runs.id}
        where ${runs.roomId} = ${roomId} and ${runs.correlationId} = ${correlationId}
        union all
        select a.cost_usd
        from ${broadcasts} join ${broadcastResponses} a on a.broadcast_id = ${broadcasts.id}
        where ${broadcasts.roomId} = ${roomId} and ${broadcasts.correlationId} = ${correlationId} and not a.is_human
      ) spent)`;
}

/**
 * Whether a workflow's next model call would cross its cost cap: it has spent the cap, or what it
 * spent plus its most expensive call so far passes it. Other workflows are not affected.
 */
export async function workflowCapReached(
  db: DbOrTx,
  run: { id: string; roomId: string; agentId: string; correlationId: string },
  settings: Pick<RoomSettings, "workflow_cost_cap_usd">,
  env: Env = getEnv(),
): Promise<LimitReachedPayload | null> {
  const cap = workflowCostCap(settings, env);
  if (cap <= 0) return null;
  return capReached(run, cap, await workflowSpending(db, run.roomId, run.correlationId));
}

/** The cap's `limit.reached`, when what a workflow spent, or that plus its largest call, crosses it. */
function capReached(
  run: { id: string; agentId: string },
  cap: number,
  spent: { costUsd: number; largestCallUsd: number },
): LimitReachedPayload | null {
  if (!reaches(spent.costUsd, cap) && !passes(spent.costUsd + spent.largestCallUsd, cap)) return null;
  return {
    limit: "workflow_cost",
    runId: run.id,
    agentId: run.agentId,
    message:
      `This workflow has spent ${dollars(spent.costUsd)} of its ${dollars(cap)} cap; its next model call ` +
      `(about ${dollars(spent.largestCallUsd)}) would cross it, so its agents stop here. Other workflows go on.`,
    used: spent.costUsd,
    allowed: cap,
    resetsAt: null,
  };
}

/** A run's own figures that its limits are checked against, as `readRunFigures` reads them. */
interface RunFigures {
  budgets: Budgets;
  /** What is left of the run is expected to spend, when any budget applies. */
  expected: ExpectedSpend | null;
  /** What the run's workflow spent, and its most expensive call so far; null without a cap. */
  workflow: { costUsd: number; largestCallUsd: number } | null;
}

type Average = { runs: number | string; input: number | string; output: number | string; scope: EstimateScope };

/** The average of the latest successful runs that used any tokens among `where`'s, as JSON; null when there are none. */
function averageOf(where: SQL, scope: EstimateScope) {
  return sql`(select case when count(*) > 0 then jsonb_build_object('runs', count(*), 'input', avg(input_tokens), 'output', avg(output_tokens), 'scope', ${scope}::text) end
    from (select ${runs.inputTokens} as input_tokens, ${runs.outputTokens} as output_tokens from ${runs}
      where ${where} and ${runs.status} = 'succeeded' and ${runs.inputTokens} + ${runs.outputTokens} > 0
      order by ${runs.createdAt} desc limit ${ESTIMATE_RUNS}) as recent)`;
}

/**
 * Today's tokens and cost in one room (or, with null, the whole instance), as JSON: what its
 * calls spent (`usage_hourly`, counted hour by hour, so a day's hours add up exactly) and what the
 * calls under way hold (their reservations). Those counts outlive their rooms: deleting a room
 * does not give the instance its budget back.
 */
export function todayOf(day: string, roomId: string | null) {
  const spentWhere = roomId === null ? sql`true` : sql`${usageHourly.roomId} = ${roomId}`;
  const reserved = reservedOf(roomId === null ? sql`true` : sql`s.room_id = ${roomId}`);
  return sql`(select jsonb_build_object(
      'tokens', coalesce(sum(input_tokens + output_tokens), 0) + (${reserved} ->> 'tokens')::bigint,
      'cost', coalesce(sum(cost_usd), 0) + (${reserved} ->> 'cost')::float8)
    from ${usageHourly} where ${usageHourly.hour} >= ${day}::timestamptz and ${spentWhere})`;
}

/** A stored instance budget that is a usable limit, else null (the environment's value applies). */
function storedLimit(name: string) {
  return sql`(select case when jsonb_typeof(value) = 'number' and value::numeric >= 0 then value::numeric end from stored where name = ${name})`;
}

/** The instance's stored budgets, as the common table `stored` that `budgetColumns` reads. */
const storedBudgets = sql`stored as (
  select name, value from ${instanceSettings} where name in ('daily_token_budget', 'daily_cost_budget_usd'))`;

type TodayJson = { tokens: number | string; cost: number | string } | null;

/** What `budgetColumns` selects. */
interface BudgetColumns {
  stored: Record<string, unknown>;
  room_today: TodayJson;
  instance_today: TodayJson;
}

/**
 * The columns today's budgets are read from, within a statement that has `storedBudgets`: the
 * instance's stored budgets, and what the room and the instance spent today, each only when it
 * has a limit (a scope without one is checked against nothing, so it costs nothing to read).
 */
function budgetColumns(day: string, room: { id: string; limits: { tokens: number; costUsd: number } } | null, env: Env) {
  const roomLimited = room !== null && (room.limits.tokens > 0 || room.limits.costUsd > 0);
  const instanceLimited = sql`coalesce(${storedLimit("daily_token_budget")}, ${env.PARLEY_INSTANCE_DAILY_TOKENS}) > 0
    or coalesce(${storedLimit("daily_cost_budget_usd")}, ${env.PARLEY_INSTANCE_DAILY_COST_USD}) > 0`;
  return sql`(select coalesce(jsonb_object_agg(name, value), '{}'::jsonb) from stored) as stored,
    ${roomLimited ? todayOf(day, room.id) : sql`null::jsonb`} as room_today,
    case when ${instanceLimited} then ${todayOf(day, null)} end as instance_today`;
}

/** Today's budgets from what `budgetColumns` read. */
function budgetsFrom(
  row: BudgetColumns,
  periods: { dayStart: Date; dayEnd: Date },
  room: { id: string; limits: { tokens: number; costUsd: number } } | null,
  env: Env,
): Budgets {
  const usage = (today: TodayJson): Usage => ({ tokens: Number(today?.tokens ?? 0), costUsd: Number(today?.cost ?? 0) });
  return {
    day: { start: periods.dayStart.toISOString(), end: periods.dayEnd.toISOString() },
    instance: scope(usage(row.instance_today), instanceLimitsFrom(row.stored, env)),
    room: room ? { roomId: room.id, ...scope(usage(row.room_today), room.limits) } : null,
  };
}

export interface ReadBudgetsOptions {
  /** A room to read besides the instance, with its settings (its own budgets). */
  room?: { id: string; settings: Pick<RoomSettings, "daily_token_budget" | "daily_cost_budget_usd"> };
  now?: Date;
  env?: Env;
}

/**
 * What today's budgets (UTC) leave the instance and, when given, one room, counting what the model
 * calls under way hold: for the room's header and the checks before a run. One statement. The
 * checks before each step of a run read the same columns within their own statement (`readRunFigures`).
 */
export async function readTodaysBudgets(db: DbOrTx, options: ReadBudgetsOptions = {}): Promise<Budgets> {
  const env = options.env ?? getEnv();
  const periods = budgetPeriods(options.now ?? new Date());
  const room = options.room ? { id: options.room.id, limits: roomDailyLimits(options.room.settings, env) } : null;
  const [row] = rowsOf<BudgetColumns>(
    await db.execute(sql`with ${storedBudgets} select ${budgetColumns(periods.dayStart.toISOString(), room, env)}`),
  );
  return budgetsFrom(row ?? { stored: {}, room_today: null, instance_today: null }, periods, room, env);
}

/**
 * Everything the limits before a run or a step are checked against, in one statement: the
 * instance's budget settings, what the room and the instance spent today (each only when it has
 * a budget), the run's largest model call so far, its agent's recent runs (only before its first
 * call), and its workflow's spending (only under a cap). Read before every step, so one round
 * trip rather than one per figure.
 */
async function readRunFigures(
  db: DbOrTx,
  run: { id: string; roomId: string; agentId: string; correlationId: string },
  settings: RoomSettings,
  now: Date,
  env: Env,
): Promise<RunFigures | null> {
  const periods = budgetPeriods(now);
  const room = { id: run.roomId, limits: roomDailyLimits(settings, env) };
  const cap = workflowCostCap(settings, env);
  const [row] = rowsOf<
    BudgetColumns & {
      calls: number | string;
      largest_tokens: number | string | null;
      largest_cost: number | string | null;
      name: string;
      model: string;
      average: Average | null;
      options: unknown;
      workflow: { cost: number | string; largest: number | string } | null;
    }
  >(
    await db.execute(sql`
      with ${storedBudgets}, calls as (
        select count(*) as calls, max(input_tokens + output_tokens) as largest_tokens, max(cost_usd) as largest_cost
        from ${runModelCalls} where run_id = ${run.id}
      )
      select
        ${budgetColumns(periods.dayStart.toISOString(), room, env)},
        calls.calls, calls.largest_tokens, calls.largest_cost, ${agents.name} as name, ${agents.model} as model,
        case when calls.calls = 0 then coalesce(
          ${averageOf(sql`${runs.agentId} = ${run.agentId}`, "agent")},
          ${averageOf(sql`${runs.roomId} = ${run.roomId}`, "room")}
        ) end as average, ${agents.modelOptions} as options,
        ${cap > 0 ? workflowSpendingQuery(run.roomId, run.correlationId) : sql`null::jsonb`} as workflow
      from calls, ${agents} where ${agents.id} = ${run.agentId}`),
  );
  if (!row) return null;
  const budgets = budgetsFrom(row, periods, room, env);
  const agent = { name: row.name, model: row.model };
  const expected: ExpectedSpend | null = !hasBudget(budgets)
    ? null
    : Number(row.calls) > 0
      ? {
          tokens: Number(row.largest_tokens ?? 0),
          costUsd: Number(row.largest_cost ?? 0),
          agentName: agent.name,
          basis: "its largest model call so far",
          next: "step",
        }
      : row.average
        ? spendOfAverage(agent, row.average.scope, {
            runs: Number(row.average.runs),
            input: Number(row.average.input),
            output: Number(row.average.output),
          })
        : firstCallSpend(agent, outputLimitOf(row.options, env));
  const workflow = row.workflow ? { costUsd: Number(row.workflow.cost), largestCallUsd: Number(row.workflow.largest) } : null;
  return { budgets, expected, workflow };
}

/**
 * The first limit that stops a run before its next model call: today's budgets (the room's and
 * the instance's), spent or about to be gone past by what is left of the run (a whole run of its
 * agent before it begins, its next step after), then its workflow's cost cap. Null when the run may go on.
 */
export async function runLimitReached(
  db: DbOrTx,
  run: { id: string; roomId: string; agentId: string; correlationId: string },
  settings: RoomSettings,
  now: Date = new Date(),
): Promise<LimitReachedPayload | null> {
  const env = getEnv();
  const figures = await readRunFigures(db, run, settings, now, env);
  if (!figures) return null;
  return (
    budgetReached(figures.budgets, { runId: run.id, agentId: run.agentId }, figures.expected) ??
    (figures.workflow ? capReached(run, workflowCostCap(settings, env), figures.workflow) : null)
  );
}

/** Whether any of today's budgets has a limit: a run needs an estimate only then. */
function hasBudget(budgets: Budgets): boolean {
  const scopes = [budgets.instance, ...(budgets.room ? [budgets.room] : [])];
  return scopes.some((each) => each.daily.tokens.limit !== null || each.daily.costUsd.limit !== null);
}

/**
 * The first of today's budgets (the room's, the instance's) that is spent, or that a run of
 * `agent`, when given, would go past; null while each has room for it.
 */
export async function spentToday(
  db: DbOrTx,
  roomId: string,
  settings: RoomSettings,
  subject: { runId: string | null; agentId: string | null },
  now: Date = new Date(),
  env: Env = getEnv(),
  agent?: { id: string; roomId: string; name: string; model: string },
): Promise<LimitReachedPayload | null> {
  const budgets = await readTodaysBudgets(db, { room: { id: roomId, settings }, now, env });
  const expected = agent && hasBudget(budgets) ? await expectedRunSpend(db, agent, env) : null;
  return budgetReached(budgets, subject, expected);
}

/**
 * The refusal of a run of `agent` in a room whose (or whose instance's) budget for today is spent,
 * or that the run is expected to go past (`expectedRunSpend`): what the room is told, or null
 * while the run fits.
 */
export async function budgetRefusal(
  db: DbOrTx,
  roomId: string,
  settings: RoomSettings,
  agent: { id: string; roomId: string; name: string; model: string },
  now: Date = new Date(),
): Promise<LimitReachedPayload | null> {
  return spentToday(db, roomId, settings, { runId: null, agentId: agent.id }, now, getEnv(), agent);
}

/** A budget's refusal as an answer: 429 until midnight UTC, its message naming the budget and the figures. */
export function budgetExceeded(reached: LimitReachedPayload, now: Date = new Date()): AppError {
  const wait = Math.max(1, Math.ceil((budgetPeriods(now).dayEnd.getTime() - now.getTime()) / 1000));
  return tooManyRequests(reached.message, wait, "budget_exceeded");
}

/** What a room may still spend today, for its header; null when neither it nor the instance has a budget. */
export async function readRoomBudget(
  db: DbOrTx,
  roomId: string,
  settings: RoomSettings,
  now: Date = new Date(),
): Promise<RoomBudgetDto | null> {
  const budget = roomBudgetDto(await readTodaysBudgets(db, { room: { id: roomId, settings }, now }));
  return budget.tokenLimit === null && budget.costLimitUsd === null ? null : budget;
}

/** What a room may still spend today: the tighter of its own budget and the instance's. */
function roomBudgetDto(budgets: Budgets): RoomBudgetDto {
  const tighter = (room: Allowance | undefined, instance: Allowance) => {
    const candidates = [room, instance].filter((each): each is Allowance & { left: number } => !!each && each.left !== null);
    if (candidates.length === 0) return { left: null, limit: null };
    const tightest = candidates.reduce((best, each) => (each.left < best.left ? each : best));
    return { left: tightest.left, limit: tightest.limit };
  };
  const tokens = tighter(budgets.room?.daily.tokens, budgets.instance.daily.tokens);
  const cost = tighter(budgets.room?.daily.costUsd, budgets.instance.daily.costUsd);
  return { tokensLeft: tokens.left, tokenLimit: tokens.limit, costLeftUsd: cost.left, costLimitUsd: cost.limit, resetsAt: budgets.day.end };
}
