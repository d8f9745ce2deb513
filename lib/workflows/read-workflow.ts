import { and, asc, desc, eq, gt, inArray, isNull, notInArray, or, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { z } from "zod";
import type { Db } from "@/db";
import { type Run, agents, boardEntries, broadcastResponses, broadcasts, events, runs } from "@/db/schema";
import { runToDto } from "@/lib/agents/run-dto";
import { type TracePart, registeredWorkflows } from "@/lib/agents/workflow-registry";
import { notFound } from "@/lib/errors";
import { exportEvents } from "@/lib/events/browse-events";
import { eventFromRow } from "@/lib/events/event-row";
import { priceFor } from "@/lib/models/pricing";
import { encodeKeysetCursor, keysetCursorSchema } from "@/lib/paging/keyset-cursor";
import type { RunDto, StoredEvent, StoredEventType } from "@/lib/protocol";
// The workflow templates, whose parts in a workflow its trace reads.
import "./index";

/**
 * Where a workflow stands, derived from its rows and never stored: `active` while anything in it
 * is open — a run queued or running, a question or a board request open, a part its templates
 * report open (a dialogue, a build review not closed, a brainstorm running or waiting at its
 * gate: each template's `trace`, `lib/agents/workflow-registry.ts`); otherwise `failed` when it
 * has no final output and something failed, `degraded` when it has its final output but
 * something failed on the way, `complete` when nothing did. Outcomes a workflow is allowed to
 * reach — a review not approved, a dialogue left unresolved or stopped — are not failures.
 */
export type WorkflowStatus = "active" | "complete" | "degraded" | "failed";

export interface WorkflowCounts {
  active: number;
  failed: number;
  /** Events of the workflow that report an error (a step whose tools failed, a retry given up). */
  errors: number;
  openQuestions: number;
  /** Requests its runs put on the board (help requests among them) that are not yet answered, cancelled or failed. */
  openRequests: number;
  /** Parts of it its templates report open: dialogues, a build review, a brainstorm. */
  openParts: number;
  /** Whether it produced what it was started for (see `hasFinalOutput`). */
  finalOutput: boolean;
}

export function workflowStatus(counts: WorkflowCounts): WorkflowStatus {
  const open = counts.active + counts.openQuestions + counts.openRequests + counts.openParts;
  if (open > 0) return "active";
  const errors = counts.failed + counts.errors;
  if (errors === 0) return "complete";
  return counts.finalOutput ? "degraded" : "failed";
}

/**
 * What a workflow was started for, and whether it has it: what the first of its templates'
 * parts that has a say in it reports (a brainstorm's deliverable, a build review's verdict);
 * for any other workflow, the answer of the run that started it (what the runs it asked for,
 * its questions and its dialogues added is on the way to that answer).
 */
export function hasFinalOutput(input: { firstRun: Pick<Run, "status">; parts: readonly TracePart[] }): boolean {
  const decided = input.parts.find((part) => part.finalOutput !== undefined);
  if (decided) return decided.finalOutput!;
  return input.firstRun.status === "succeeded";
}

/**
 * Whether what a part of a workflow spent has a known price: it spent nothing, or its model is
 * in the price table. A model without a price reports a cost of 0, which is not what it cost.
 */
export function spendPriced(model: string | undefined, spend: { inputTokens: number; outputTokens: number; costUsd: number }): boolean {
  if (spend.inputTokens + spend.outputTokens === 0 || spend.costUsd > 0) return true;
  return model !== undefined && priceFor(model) !== null;
}

interface WorkflowSummary {
  correlationId: string;
  status: WorkflowStatus;
  /** The run that started it: who, and what it was asked. */
  startedBy: { agentId: string; prompt: string; trigger: RunDto["trigger"] };
  runs: number;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  inputTokens: number;
  outputTokens: number;
  /** What its runs and its agents' shadow answers cost, at the prices known. */
  costUsd: number;
  /** False when some of it was spent by a model without a known price: `costUsd` is then not the whole cost. */
  costKnown: boolean;
  /**
   * How many times its work was tried: once for each of its runs, and once more for each model
   * call made again after a passing failure (each retry is an event). A run a worker took over
   * after another one stopped is not tried again by that: it goes on from its saved steps.
   */
  attempts: number;
}

interface WorkflowAgent {
  id: string;
  name: string;
  runs: number;
  steps: number;
  costUsd: number;
  costKnown: boolean;
}

export interface WorkflowDetail extends WorkflowSummary {
  /** Everyone who worked in it: its runs' agents, and agents whose shadows answered its questions. */
  agents: WorkflowAgent[];
  runList: RunDto[];
  /** Its messages in order, a page at a time (`after`, `limit`); `nextAfter` continues when there are more. */
  messages: StoredEvent[];
  nextAfter: number | null;
}

export const workflowListQuerySchema = z.strictObject({
  /**
   * Continues after the last workflow a page showed: that page's `nextCursor` (its start and
   * correlation id, so workflows started in the same millisecond are none of them skipped).
   */
  cursor: keysetCursorSchema.optional(),
  /** Only workflows started before this time (ISO 8601). */
  before: z.iso.datetime({ offset: true, message: "before must be an ISO 8601 time" }).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export interface WorkflowPage {
  workflows: WorkflowSummary[];
  /** Give it as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}

export const workflowMessagesQuerySchema = z.strictObject({
  /** Messages after this sequence number. */
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
});

/** The one query-string reader, which the dashboard's routes also take from here. */
export { parseQuery } from "@/lib/paging/parse-query";

const runTotals = {
  correlationId: runs.correlationId,
  runs: sql<number>`count(*)::int`,
  active: sql<number>`(count(*) filter (where ${runs.status} in ('queued', 'running')))::int`,
  failed: sql<number>`(count(*) filter (where ${runs.status} = 'failed'))::int`,
  startedAt: sql<string>`min(date_trunc('milliseconds', ${runs.createdAt}))`,
  endedAt: sql<string | null>`case when count(*) filter (where ${runs.finishedAt} is null) > 0 then null else max(${runs.finishedAt}) end`,
};

interface Totals {
  correlationId: string;
  runs: number;
  active: number;
  failed: number;
  startedAt: string;
  endedAt: string | null;
}

interface Extras {
  openQuestions: number;
  openRequests: number;
  openParts: number;
  /** Its templates' parts in it, in the order the templates are registered. */
  parts: TracePart[];
  errors: number;
  /** Model calls made again after a passing failure, each announced by a `run.retrying` or `broadcast.retrying` event. */
  retries: number;
  /** What each agent spent in it: its runs, and its shadow's answers to the workflow's questions. */
  spend: Map<string, { runs: number; steps: number; inputTokens: number; outputTokens: number; costUsd: number; name: string }>;
}

/**
 * A board request still to be served: open (waiting for the scheduler, or for another try after
 * its run failed), queued or in progress. One that expired unserved is never served, so it holds
 * nothing open.
 */
const PENDING_REQUEST_STATUSES = ["open", "queued", "in_progress"] as const;

/**
 * A run's end, and the ends of the templates' parts (a dialogue, a review, a brainstorm), are
 * reported by the events that close them; a failure among them is a failed run, counted as
 * such, so the closing event is not counted again, and a part ending as it may (stopped, not
 * approved) is an outcome, not an error.
 */
function outcomeEventTypes(): StoredEventType[] {
  return ["run.finished", ...registeredWorkflows().flatMap((module) => module.trace?.outcomeEvents ?? [])];
}

/** The events announcing that a model call failed for a passing reason and is made again. */
const RETRY_EVENT_TYPES = ["run.retrying", "broadcast.retrying"];

/** What the runs table does not say about workflows: what is still open, errors reported, spending by agent. */
async function workflowExtras(db: Db, roomId: string, correlationIds: string[]): Promise<Map<string, Extras>> {
  const result = new Map<string, Extras>();
  if (correlationIds.length === 0) return result;
  const countBy = <C extends AnyPgColumn>(correlationId: C) => ({ correlationId, value: sql<number>`count(*)::int` });
  const outcomes = outcomeEventTypes();
  const traces = registeredWorkflows().flatMap((module) => (module.trace ? [module.trace] : []));
  const [open, requesting, templateParts, failing, runSpend, shadowSpend] = await Promise.all([
    db
      .select(countBy(broadcasts.correlationId))
      .from(broadcasts)
      .where(
        and(
          eq(broadcasts.roomId, roomId),
          inArray(broadcasts.correlationId, correlationIds),
          inArray(broadcasts.status, ["pending", "waiting_turn", "open"]),
        ),
      )
      .groupBy(broadcasts.correlationId),
    // A request belongs to the workflow of the run that put it on the board.
    db
      .select(countBy(runs.correlationId))
      .from(boardEntries)
      .innerJoin(runs, eq(runs.id, boardEntries.runId))
      .where(
        and(
          eq(boardEntries.roomId, roomId),
          eq(boardEntries.kind, "request"),
          inArray(boardEntries.requestStatus, [...PENDING_REQUEST_STATUSES]),
          or(isNull(boardEntries.expiresAt), gt(boardEntries.expiresAt, new Date())),
          eq(runs.roomId, roomId),
          inArray(runs.correlationId, correlationIds),
        ),
      )
      .groupBy(runs.correlationId),
    // What each template says of its part in the workflows: a build review or a brainstorm it is, its dialogues.
    Promise.all(traces.map((trace) => trace.parts(db, roomId, correlationIds))),
    db
      .select({
        correlationId: events.correlationId,
        errors: sql<number>`(count(*) filter (where ${and(eq(events.status, "error"), notInArray(events.type, outcomes))}))::int`,
        retries: sql<number>`(count(*) filter (where ${inArray(events.type, RETRY_EVENT_TYPES)}))::int`,
      })
      .from(events)
      .where(
        and(
          eq(events.roomId, roomId),
          inArray(events.correlationId, correlationIds),
          or(and(eq(events.status, "error"), notInArray(events.type, outcomes)), inArray(events.type, RETRY_EVENT_TYPES)),
        ),
      )
      .groupBy(events.correlationId),
    db
      .select({
        correlationId: runs.correlationId,
        agentId: runs.agentId,
        runs: sql<number>`count(*)::int`,
        steps: sql<number>`coalesce(sum(${runs.steps}), 0)::int`,
        inputTokens: sql<number>`coalesce(sum(${runs.inputTokens}), 0)::float8`,
        outputTokens: sql<number>`coalesce(sum(${runs.outputTokens}), 0)::float8`,
        costUsd: sql<number>`coalesce(sum(${runs.costUsd}), 0)::float8`,
      })
      .from(runs)
      .where(and(eq(runs.roomId, roomId), inArray(runs.correlationId, correlationIds)))
      .groupBy(runs.correlationId, runs.agentId),
    db
      .select({
        correlationId: broadcasts.correlationId,
        agentId: broadcastResponses.responderId,
        name: sql<string>`max(${broadcastResponses.responderName})`,
        inputTokens: sql<number>`coalesce(sum(${broadcastResponses.inputTokens}), 0)::float8`,
        outputTokens: sql<number>`coalesce(sum(${broadcastResponses.outputTokens}), 0)::float8`,
        costUsd: sql<number>`coalesce(sum(${broadcastResponses.costUsd}), 0)::float8`,
      })
      .from(broadcastResponses)
      .innerJoin(broadcasts, eq(broadcasts.id, broadcastResponses.broadcastId))
      .where(and(eq(broadcasts.roomId, roomId), inArray(broadcasts.correlationId, correlationIds), eq(broadcastResponses.isHuman, false)))
      .groupBy(broadcasts.correlationId, broadcastResponses.responderId),
  ]);
  for (const id of correlationIds) {
    result.set(id, {
      openQuestions: 0,
      openRequests: 0,
      openParts: 0,
      parts: [],
      errors: 0,
      retries: 0,
      spend: new Map(),
    });
  }
  for (const row of open) result.get(row.correlationId)!.openQuestions = Number(row.value);
  for (const row of requesting) result.get(row.correlationId)!.openRequests = Number(row.value);
  for (const parts of templateParts) {
    for (const [correlationId, part] of parts) {
      const extra = result.get(correlationId);
      if (!extra) continue;
      extra.parts.push(part);
      extra.openParts += part.open;
    }
  }
  for (const row of failing) Object.assign(result.get(row.correlationId)!, { errors: Number(row.errors), retries: Number(row.retries) });
  for (const row of runSpend) {
    result.get(row.correlationId)!.spend.set(row.agentId, { ...row, runs: Number(row.runs), steps: Number(row.steps), name: "" });
  }
  for (const row of shadowSpend) {
    const spend = result.get(row.correlationId)!.spend;
    const agent = spend.get(row.agentId) ?? { runs: 0, steps: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, name: row.name };
    spend.set(row.agentId, {
      ...agent,
      inputTokens: agent.inputTokens + Number(row.inputTokens),
      outputTokens: agent.outputTokens + Number(row.outputTokens),
      costUsd: agent.costUsd + Number(row.costUsd),
    });
  }
  return result;
}

/** The room's agents by id: their names, and the models their spending is priced at. */
async function roomAgents(db: Db, roomId: string): Promise<Map<string, { name: string; model: string }>> {
  const rows = await db.select({ id: agents.id, name: agents.name, model: agents.model }).from(agents).where(eq(agents.roomId, roomId));
  return new Map(rows.map((row) => [row.id, row]));
}

function summarise(totals: Totals, first: Run, extra: Extras, team: Map<string, { model: string }>): WorkflowSummary {
  const startedAt = new Date(totals.startedAt);
  const status = workflowStatus({ ...totals, ...extra, finalOutput: hasFinalOutput({ firstRun: first, ...extra }) });
  const endedAt = status === "active" ? null : lastEnd(totals, extra);
  const spent = [...extra.spend.entries()];
  return {
    correlationId: totals.correlationId,
    status,
    startedBy: { agentId: first.agentId, prompt: first.prompt, trigger: first.trigger },
    runs: totals.runs,
    startedAt: startedAt.toISOString(),
    endedAt: endedAt?.toISOString() ?? null,
    durationMs: endedAt ? endedAt.getTime() - startedAt.getTime() : null,
    inputTokens: spent.reduce((sum, [, agent]) => sum + agent.inputTokens, 0),
    outputTokens: spent.reduce((sum, [, agent]) => sum + agent.outputTokens, 0),
    costUsd: spent.reduce((sum, [, agent]) => sum + agent.costUsd, 0),
    costKnown: spent.every(([agentId, agent]) => spendPriced(team.get(agentId)?.model, agent)),
    attempts: totals.runs + extra.retries,
  };
}

/**
 * When a workflow that is no longer active ended: its last run's end, or a template's part's
 * when that came later (a brainstorm stopped at its gate ends when it is stopped).
 */
function lastEnd(totals: Totals, extra: Extras): Date | null {
  const ends = [totals.endedAt, ...extra.parts.map((part) => part.finishedAt)].filter((end) => end != null).map((end) => new Date(end));
  return ends.length ? new Date(Math.max(...ends.map((end) => end.getTime()))) : null;
}

/** A room's workflows, newest first, `limit` at a time; `nextCursor` continues after the last one. */
export async function listWorkflows(
  db: Db,
  roomId: string,
  query: Partial<z.infer<typeof workflowListQuerySchema>> = {},
): Promise<WorkflowPage> {
  const limit = query.limit ?? 20;
  const started = sql`min(date_trunc('milliseconds', ${runs.createdAt}))`;
  const page = await db
    .select(runTotals)
    .from(runs)
    .where(eq(runs.roomId, roomId))
    .groupBy(runs.correlationId)
    .having(
      and(
        query.before ? sql`${started} < ${new Date(query.before).toISOString()}::timestamptz` : undefined,
        query.cursor ? sql`(${started}, ${runs.correlationId}) < (${query.cursor.at}::timestamptz, ${query.cursor.id})` : undefined,
      ),
    )
    .orderBy(desc(started), desc(runs.correlationId))
    .limit(limit);
  const ids = page.map((row) => row.correlationId);
  if (ids.length === 0) return { workflows: [], nextCursor: null };
  const [firstRuns, extras, team] = await Promise.all([
    db
      .selectDistinctOn([runs.correlationId])
      .from(runs)
      .where(and(eq(runs.roomId, roomId), inArray(runs.correlationId, ids)))
      .orderBy(runs.correlationId, asc(runs.createdAt)),
    workflowExtras(db, roomId, ids),
    roomAgents(db, roomId),
  ]);
  const workflows = page.map((totals) =>
    summarise(totals, firstRuns.find((run) => run.correlationId === totals.correlationId)!, extras.get(totals.correlationId)!, team),
  );
  const last = workflows.at(-1)!;
  return { workflows, nextCursor: page.length === limit ? encodeKeysetCursor({ at: last.startedAt, id: last.correlationId }) : null };
}

/** One workflow: its totals, its agents and runs, and its messages in order, a page at a time. */
export async function readWorkflow(
  db: Db,
  roomId: string,
  correlationId: string,
  page: Partial<z.infer<typeof workflowMessagesQuerySchema>> = {},
): Promise<WorkflowDetail> {
  const limit = page.limit ?? 500;
  const [[totals], runRows, messageRows, extras, team] = await Promise.all([
    db
      .select(runTotals)
      .from(runs)
      .where(and(eq(runs.roomId, roomId), eq(runs.correlationId, correlationId)))
      .groupBy(runs.correlationId),
    db
      .select()
      .from(runs)
      .where(and(eq(runs.roomId, roomId), eq(runs.correlationId, correlationId)))
      .orderBy(asc(runs.createdAt)),
    db
      .select()
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.correlationId, correlationId), gt(events.seq, page.after ?? 0)))
      .orderBy(asc(events.seq))
      .limit(limit + 1),
    workflowExtras(db, roomId, [correlationId]),
    roomAgents(db, roomId),
  ]);
  if (!totals || runRows.length === 0) throw notFound(`Workflow ${correlationId}`);
  const extra = extras.get(correlationId)!;
  const messages = messageRows.slice(0, limit).map(eventFromRow);
  // Its runs' agents in the order they first worked, then agents that only answered its questions.
  const order = [...new Set([...runRows.map((run) => run.agentId), ...extra.spend.keys()])];
  const workflowAgents = order.map((id): WorkflowAgent => {
    const spend = extra.spend.get(id)!;
    return {
      id,
      name: team.get(id)?.name ?? spend.name,
      runs: spend.runs,
      steps: spend.steps,
      costUsd: spend.costUsd,
      costKnown: spendPriced(team.get(id)?.model, spend),
    };
  });
  return {
    ...summarise(totals, runRows[0]!, extra, team),
    agents: workflowAgents,
    runList: runRows.map(runToDto),
    messages,
    nextAfter: messageRows.length > limit ? messages.at(-1)!.seq : null,
  };
}

/**
 * A workflow's messages as JSON Lines, read a page at a time as the reader takes them: memory
 * stays bounded however long the workflow is.
 */
export function exportWorkflow(db: Db, roomId: string, correlationId: string, pageSize = 500): ReadableStream<Uint8Array> {
  return exportEvents(db, roomId, { correlation_id: correlationId }, pageSize);
}

/** Refuses a workflow that is not in the room (404). */
export async function assertWorkflow(db: Db, roomId: string, correlationId: string): Promise<void> {
  const [found] = await db
    .select({ id: runs.id })
    .from(runs)
    .where(and(eq(runs.roomId, roomId), eq(runs.correlationId, correlationId)))
    .limit(1);
  if (!found) throw notFound(`Workflow ${correlationId}`);
}
