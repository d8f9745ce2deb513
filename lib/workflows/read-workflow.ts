import { and, asc, desc, eq, gt, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { type Run, broadcasts, events, runs } from "@/db/schema";
import { runToDto } from "@/lib/agents/run-dto";
import { badRequest, notFound } from "@/lib/errors";
import { eventFromRow } from "@/lib/events/event-row";
import type { RunDto, StoredEvent } from "@/lib/protocol";

/**
 * Where a workflow stands, derived from its rows and never stored: `active` while any of its
 * runs is queued or running or any of its questions is open; otherwise `failed` when nothing
 * in it succeeded and something failed, `degraded` when it produced output but something
 * failed on the way, `complete` when nothing did.
 */
export type WorkflowStatus = "active" | "complete" | "degraded" | "failed";

export interface WorkflowCounts {
  active: number;
  succeeded: number;
  failed: number;
  /** Events of the workflow that report an error (a step whose tools failed, a retry given up). */
  errors: number;
  openQuestions: number;
}

export function workflowStatus(counts: WorkflowCounts): WorkflowStatus {
  if (counts.active > 0 || counts.openQuestions > 0) return "active";
  const errors = counts.failed + counts.errors;
  if (counts.succeeded === 0 && errors > 0) return "failed";
  return errors > 0 ? "degraded" : "complete";
}

export interface WorkflowSummary {
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
  costUsd: number;
  attempts: number;
}

export interface WorkflowDetail extends WorkflowSummary {
  agents: { id: string; name: string; runs: number; steps: number; costUsd: number }[];
  runList: RunDto[];
  /** Its messages in order, a page at a time (`after`, `limit`); `nextAfter` continues when there are more. */
  messages: StoredEvent[];
  nextAfter: number | null;
}

export const workflowListQuerySchema = z.strictObject({
  /** Workflows started before this time (ISO 8601): the `startedAt` of the last one a page showed. */
  before: z.iso.datetime({ offset: true, message: "before must be an ISO 8601 time" }).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const workflowMessagesQuerySchema = z.strictObject({
  /** Messages after this sequence number. */
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
});

/** Reads a query string with `schema`, refusing unknown or bad parameters (400). */
export function parseQuery<T extends z.ZodType>(schema: T, params: URLSearchParams): z.infer<T> {
  const raw: Record<string, string> = {};
  for (const [key, value] of params) raw[key] = value;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw badRequest(
      parsed.error.issues
        .map((issue) => (issue.code === "unrecognized_keys" ? `unknown parameter(s) ${issue.keys.join(", ")}` : `${issue.path.join(".")}: ${issue.message}`))
        .join("; "),
    );
  }
  return parsed.data;
}

const runTotals = {
  correlationId: runs.correlationId,
  runs: sql<number>`count(*)::int`,
  active: sql<number>`(count(*) filter (where ${runs.status} in ('queued', 'running')))::int`,
  succeeded: sql<number>`(count(*) filter (where ${runs.status} = 'succeeded'))::int`,
  failed: sql<number>`(count(*) filter (where ${runs.status} = 'failed'))::int`,
  startedAt: sql<string>`min(${runs.createdAt})`,
  endedAt: sql<string | null>`case when count(*) filter (where ${runs.finishedAt} is null) > 0 then null else max(${runs.finishedAt}) end`,
  inputTokens: sql<number>`coalesce(sum(${runs.inputTokens}), 0)::float8`,
  outputTokens: sql<number>`coalesce(sum(${runs.outputTokens}), 0)::float8`,
  costUsd: sql<number>`coalesce(sum(${runs.costUsd}), 0)::float8`,
  attempts: sql<number>`coalesce(sum(${runs.attempts}), 0)::int`,
};

interface Totals {
  correlationId: string;
  runs: number;
  active: number;
  succeeded: number;
  failed: number;
  startedAt: string;
  endedAt: string | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  attempts: number;
}

async function questionsAndErrors(db: Db, roomId: string, correlationIds: string[]) {
  if (correlationIds.length === 0) return new Map<string, { open: number; errors: number }>();
  const [open, failing] = await Promise.all([
    db
      .select({ correlationId: broadcasts.correlationId, value: sql<number>`count(*)::int` })
      .from(broadcasts)
      .where(
        and(
          eq(broadcasts.roomId, roomId),
          inArray(broadcasts.correlationId, correlationIds),
          inArray(broadcasts.status, ["pending", "waiting_turn", "open"]),
        ),
      )
      .groupBy(broadcasts.correlationId),
    db
      .select({ correlationId: events.correlationId, value: sql<number>`count(*)::int` })
      .from(events)
      .where(and(eq(events.roomId, roomId), inArray(events.correlationId, correlationIds), eq(events.status, "error"), sql`${events.type} <> 'run.finished'`))
      .groupBy(events.correlationId),
  ]);
  const result = new Map<string, { open: number; errors: number }>();
  for (const id of correlationIds) result.set(id, { open: 0, errors: 0 });
  for (const row of open) result.get(row.correlationId)!.open = Number(row.value);
  for (const row of failing) result.get(row.correlationId)!.errors = Number(row.value);
  return result;
}

function summarise(totals: Totals, first: Run, extra: { open: number; errors: number }): WorkflowSummary {
  const startedAt = new Date(totals.startedAt);
  const endedAt = totals.endedAt ? new Date(totals.endedAt) : null;
  return {
    correlationId: totals.correlationId,
    status: workflowStatus({ ...totals, openQuestions: extra.open, errors: extra.errors }),
    startedBy: { agentId: first.agentId, prompt: first.prompt, trigger: first.trigger },
    runs: totals.runs,
    startedAt: startedAt.toISOString(),
    endedAt: endedAt?.toISOString() ?? null,
    durationMs: endedAt ? endedAt.getTime() - startedAt.getTime() : null,
    inputTokens: totals.inputTokens,
    outputTokens: totals.outputTokens,
    costUsd: totals.costUsd,
    attempts: totals.attempts,
  };
}

/** A room's workflows, newest first, `limit` at a time. */
export async function listWorkflows(db: Db, roomId: string, query: Partial<z.infer<typeof workflowListQuerySchema>> = {}): Promise<WorkflowSummary[]> {
  const having = query.before ? sql`min(${runs.createdAt}) < ${new Date(query.before).toISOString()}::timestamptz` : undefined;
  const page = await db
    .select(runTotals)
    .from(runs)
    .where(eq(runs.roomId, roomId))
    .groupBy(runs.correlationId)
    .having(having)
    .orderBy(desc(sql`min(${runs.createdAt})`))
    .limit(query.limit ?? 20);
  const ids = page.map((row) => row.correlationId);
  if (ids.length === 0) return [];
  const [firstRuns, extras] = await Promise.all([
    db
      .selectDistinctOn([runs.correlationId])
      .from(runs)
      .where(and(eq(runs.roomId, roomId), inArray(runs.correlationId, ids)))
      .orderBy(runs.correlationId, asc(runs.createdAt)),
    questionsAndErrors(db, roomId, ids),
  ]);
  return page.map((totals) => summarise(totals, firstRuns.find((run) => run.correlationId === totals.correlationId)!, extras.get(totals.correlationId)!));
}

/** One workflow: its totals, its agents and runs, and its messages in order, a page at a time. */
export async function readWorkflow(
  db: Db,
  roomId: string,
  correlationId: string,
  page: Partial<z.infer<typeof workflowMessagesQuerySchema>> = {},
): Promise<WorkflowDetail> {
  const limit = page.limit ?? 500;
  const [[totals], runRows, messageRows, extras] = await Promise.all([
    db.select(runTotals).from(runs).where(and(eq(runs.roomId, roomId), eq(runs.correlationId, correlationId))).groupBy(runs.correlationId),
    db.select().from(runs).where(and(eq(runs.roomId, roomId), eq(runs.correlationId, correlationId))).orderBy(asc(runs.createdAt)),
    db
      .select()
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.correlationId, correlationId), gt(events.seq, page.after ?? 0)))
      .orderBy(asc(events.seq))
      .limit(limit + 1),
    questionsAndErrors(db, roomId, [correlationId]),
  ]);
  if (!totals || runRows.length === 0) throw notFound(`Workflow ${correlationId}`);
  const agents = new Map<string, WorkflowDetail["agents"][number]>();
  for (const run of runRows) {
    const agent = agents.get(run.agentId) ?? { id: run.agentId, name: "", runs: 0, steps: 0, costUsd: 0 };
    agent.runs += 1;
    agent.steps += run.steps;
    agent.costUsd += run.costUsd;
    agents.set(run.agentId, agent);
  }
  const messages = messageRows.slice(0, limit).map(eventFromRow);
  for (const message of messages) {
    const agent = agents.get(message.agent);
    if (agent && !agent.name) agent.name = message.agent_name;
  }
  return {
    ...summarise(totals, runRows[0]!, extras.get(correlationId)!),
    agents: [...agents.values()],
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
  const encoder = new TextEncoder();
  let after = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const rows = await db
        .select()
        .from(events)
        .where(and(eq(events.roomId, roomId), eq(events.correlationId, correlationId), gt(events.seq, after)))
        .orderBy(asc(events.seq))
        .limit(pageSize);
      if (rows.length === 0) {
        controller.close();
        return;
      }
      after = rows.at(-1)!.seq;
      controller.enqueue(encoder.encode(rows.map((row) => `${JSON.stringify(eventFromRow(row))}\n`).join("")));
      if (rows.length < pageSize) controller.close();
    },
  }, { highWaterMark: 1 });
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
