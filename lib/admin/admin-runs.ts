import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { type Run, agents, events, rooms, runModelCalls, runs } from "@/db/schema";
import { notFound } from "@/lib/errors";
import { agentsNamed } from "./find-agents";
import { type ErrorDetails, type PayloadOf, type StoredErrorDetails, readErrorDetails, runStatusSchema } from "@/lib/protocol";
import { keysetCursorSchema } from "@/lib/paging/keyset-cursor";
import { type Page, exactTime, keysetPage, limitSchema } from "@/lib/paging/keyset-page";

/** How much of a run's prompt a list shows. */
const PROMPT_PREVIEW = 240;

export const adminRunsQuerySchema = z.strictObject({
  status: runStatusSchema.optional(),
  room: z.string().min(1).max(64).optional(),
  /** An agent's id, or a name: every agent of that name across the instance (or in `room`). */
  agent: z.string().trim().min(1).max(120).optional(),
  cursor: keysetCursorSchema.optional(),
  limit: limitSchema(50),
});
export type AdminRunsQuery = z.infer<typeof adminRunsQuerySchema>;

/** A run as the dashboard lists it: with its room's title and its agent's name and model. */
export interface AdminRunRow {
  id: string;
  roomId: string;
  roomTitle: string;
  agentId: string;
  agentName: string;
  agentColor: string;
  model: string;
  status: Run["status"];
  trigger: Run["trigger"];
  requestedBy: string;
  /** The start of its prompt. */
  prompt: string;
  correlationId: string;
  steps: number;
  attempts: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  error: ErrorDetails | null;
  cancelRequested: boolean;
  /** The worker holding it while it runs. */
  leaseOwner: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

const listColumns = {
  id: runs.id,
  roomId: runs.roomId,
  roomTitle: rooms.title,
  agentId: runs.agentId,
  agentName: agents.name,
  agentColor: agents.color,
  model: agents.model,
  status: runs.status,
  trigger: runs.trigger,
  requestedBy: runs.requestedBy,
  prompt: sql<string>`left(${runs.prompt}, ${PROMPT_PREVIEW})`,
  correlationId: runs.correlationId,
  steps: runs.steps,
  attempts: runs.attempts,
  inputTokens: runs.inputTokens,
  outputTokens: runs.outputTokens,
  costUsd: runs.costUsd,
  error: runs.error,
  cancelRequested: runs.cancelRequested,
  leaseOwner: runs.leaseOwner,
  createdAt: runs.createdAt,
  startedAt: runs.startedAt,
  finishedAt: runs.finishedAt,
  cursorAt: exactTime(runs.createdAt),
};

type ListedRun = { [K in keyof typeof listColumns]: unknown } & {
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  cursorAt: string;
};

function toRow(row: ListedRun): AdminRunRow {
  const { cursorAt: _cursor, createdAt, startedAt, finishedAt, ...rest } = row;
  return {
    ...(rest as Omit<AdminRunRow, "createdAt" | "startedAt" | "finishedAt">),
    error: readErrorDetails(rest.error as StoredErrorDetails | null),
    inputTokens: Number(rest.inputTokens),
    outputTokens: Number(rest.outputTokens),
    createdAt: createdAt.toISOString(),
    startedAt: startedAt?.toISOString() ?? null,
    finishedAt: finishedAt?.toISOString() ?? null,
  };
}

/**
 * Every room's runs, newest first, filtered by status, room and agent (by id, or by name across
 * rooms), a page at a time.
 */
export async function listAdminRuns(db: Db, query: AdminRunsQuery): Promise<Page<AdminRunRow>> {
  const agentIds = query.agent ? await agentsNamed(db, query.agent, query.room) : null;
  const rows = await db
    .select(listColumns)
    .from(runs)
    .innerJoin(rooms, eq(rooms.id, runs.roomId))
    .innerJoin(agents, eq(agents.id, runs.agentId))
    .where(
      and(
        query.status ? eq(runs.status, query.status) : undefined,
        query.room ? eq(runs.roomId, query.room) : undefined,
        agentIds ? inArray(runs.agentId, agentIds) : undefined,
        query.cursor ? sql`(${runs.createdAt}, ${runs.id}) < (${query.cursor.at}::timestamptz, ${query.cursor.id})` : undefined,
      ),
    )
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(query.limit + 1);
  return keysetPage(rows as ListedRun[], query.limit, toRow, (row) => ({ at: row.cursorAt, id: row.id as string }));
}

/** Runs queued and running, by status, across the instance. */
export async function countActiveRuns(db: Db): Promise<{ queued: number; running: number }> {
  const rows = await db
    .select({ status: runs.status, count: sql<number>`count(*)::int` })
    .from(runs)
    .where(inArray(runs.status, ["queued", "running"]))
    .groupBy(runs.status);
  const of = (status: string) => Number(rows.find((row) => row.status === status)?.count ?? 0);
  return { queued: of("queued"), running: of("running") };
}

/** One step of a run, as its `run.step` event recorded it. */
export interface AdminRunStep extends Omit<PayloadOf<"run.step">, "runId" | "agentId"> {
  seq: number;
  at: string;
  /** The attempt that took it (a run taken over by another worker continues in a new attempt). */
  attempt: number;
}

export interface AdminRunDetail {
  run: AdminRunRow & {
    prompt: string;
    parentRunId: string | null;
    chainDepth: number;
    streamingText: string;
    leaseExpiresAt: string | null;
  };
  steps: AdminRunStep[];
  /** When each attempt started. */
  attempts: { attempt: number; at: string }[];
  /** Model calls that failed for a passing reason and were made again. */
  retries: { seq: number; at: string; step: number; retry: number; of: number; error: ErrorDetails }[];
  /** Every model call that returned usage, per attempt: what the provider bills. */
  modelCalls: { attempt: number; call: number; step: number; inputTokens: number; outputTokens: number; costUsd: number; at: string }[];
}

/** The events of a run the detail reads; a workflow's own messages are read by `readWorkflow`. */
const RUN_EVENT_TYPES = ["run.started", "run.step", "run.retrying"] as const;
/** More than a run can have: 50 steps a run, each attempt's start and a few retries a step. */
const RUN_EVENTS_LIMIT = 2000;

/** One run with its steps (text, tool calls and results, tokens, cost, duration), attempts, retries and model calls. */
export async function readAdminRun(db: Db, runId: string): Promise<AdminRunDetail> {
  const [row] = await db
    .select({
      ...listColumns,
      prompt: runs.prompt,
      parentRunId: runs.parentRunId,
      chainDepth: runs.chainDepth,
      streamingText: runs.streamingText,
      leaseExpiresAt: runs.leaseExpiresAt,
    })
    .from(runs)
    .innerJoin(rooms, eq(rooms.id, runs.roomId))
    .innerJoin(agents, eq(agents.id, runs.agentId))
    .where(eq(runs.id, runId));
  if (!row) throw notFound(`Run ${runId}`);
  const [eventRows, calls] = await Promise.all([
    db
      .select({ seq: events.seq, type: events.type, payload: events.payload, createdAt: events.createdAt })
      .from(events)
      .where(
        and(
          eq(events.roomId, row.roomId),
          eq(events.correlationId, row.correlationId),
          inArray(events.type, [...RUN_EVENT_TYPES]),
          sql`${events.payload}->>'runId' = ${runId}`,
        ),
      )
      .orderBy(asc(events.seq))
      .limit(RUN_EVENTS_LIMIT),
    db.select().from(runModelCalls).where(eq(runModelCalls.runId, runId)).orderBy(asc(runModelCalls.attempt), asc(runModelCalls.call)),
  ]);
  const steps: AdminRunStep[] = [];
  const attempts: AdminRunDetail["attempts"] = [];
  const retries: AdminRunDetail["retries"] = [];
  let attempt = 0;
  for (const event of eventRows) {
    const at = event.createdAt.toISOString();
    if (event.type === "run.started") {
      const payload = event.payload as PayloadOf<"run.started">;
      attempt = payload.attempt;
      attempts.push({ attempt, at: payload.startedAt });
    } else if (event.type === "run.step") {
      const { runId: _run, agentId: _agent, ...step } = event.payload as PayloadOf<"run.step">;
      steps.push({ ...step, seq: event.seq, at, attempt });
    } else {
      const { step, retry, of, error } = event.payload as Omit<PayloadOf<"run.retrying">, "error"> & { error: StoredErrorDetails };
      retries.push({ seq: event.seq, at, step, retry, of, error: readErrorDetails(error)! });
    }
  }
  const { parentRunId, chainDepth, streamingText, leaseExpiresAt, ...listed } = row;
  return {
    run: {
      ...toRow(listed as ListedRun),
      prompt: row.prompt,
      parentRunId,
      chainDepth,
      streamingText,
      leaseExpiresAt: leaseExpiresAt?.toISOString() ?? null,
    },
    steps,
    attempts,
    retries,
    modelCalls: calls.map((call) => ({
      attempt: call.attempt,
      call: call.call,
      step: call.step,
      inputTokens: Number(call.inputTokens),
      outputTokens: Number(call.outputTokens),
      costUsd: call.costUsd,
      at: call.createdAt.toISOString(),
    })),
  };
}
